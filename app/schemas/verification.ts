import { z } from "./zod";
import { safeText } from "./text";

/**
 * Photo verification (API.md "Unmatch, verification, appeals and message safety"): the member
 * copies a pose in a selfie; a moderator compares the selfie with the member's profile photos.
 * The poses are data: an id, the instruction shown, and the drawing (app/components/verification).
 */

export const VERIFICATION_STATUSES = ["none", "pending", "verified", "rejected"] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const POSES = [
  { id: "peace", instruction: "Hold up two fingers in a peace sign beside your face." },
  { id: "thumbs_up", instruction: "Give a thumbs up next to your chin." },
  { id: "hand_on_head", instruction: "Put one hand flat on top of your head." },
  { id: "point_up", instruction: "Point one finger straight up beside your cheek." },
  { id: "wave", instruction: "Wave at the camera with an open hand beside your face." },
] as const;
export type PoseId = (typeof POSES)[number]["id"];
export type Pose = { id: PoseId; instruction: string };

export const poseById = (id: string): Pose | undefined => POSES.find((p) => p.id === id);

/**
 * Why a moderator turns a selfie down, each with what the member is told, in plain words. The
 * member may try again (with a new pose) after any of them.
 */
export const REJECT_REASONS = {
  face_unclear: "We could not see your face clearly. Try again in good light, facing the camera.",
  pose_mismatch: "The selfie does not show the pose we asked for. Try again with the new pose.",
  no_match:
    "We could not match the selfie with the photos on your profile. Your profile photos must show you.",
  not_live: "The selfie looks like a photo of a screen or a print. Please take it live, yourself.",
} as const;
export type RejectReason = keyof typeof REJECT_REASONS;
export const REJECT_REASON_IDS = Object.keys(REJECT_REASONS) as [RejectReason, ...RejectReason[]];

/** Short labels for the moderators' buttons. */
export const REJECT_REASON_LABELS: Record<RejectReason, string> = {
  face_unclear: "Face unclear",
  pose_mismatch: "Wrong pose",
  no_match: "Not the person in the photos",
  not_live: "Not a live selfie",
};

export const VERIFICATION_MESSAGES = {
  pose: "Please copy the pose shown.",
  selfie: "Please take a selfie or choose a photo.",
  pending: "Your selfie is already waiting for a moderator.",
  verified: "Your profile is already verified.",
  noPhotos: "Add a photo of yourself to your profile before you verify it.",
  submitted: "Thank you. A moderator will compare your selfie with your profile photos.",
  tooMany: "You have tried to verify too often. Please try again later.",
  approved: "The member is verified.",
  rejected: "The selfie was turned down; the member has been told why.",
  reason: "Please choose why the selfie is turned down.",
} as const;

/**
 * What the selfie page says when the camera cannot be used (app/components/verification): the
 * member can always choose a photo of themself instead.
 */
export const CAMERA_MESSAGES = {
  /** Refused: at the browser's prompt, or turned off for the site before. */
  refused:
    "Camera access is turned off for Heartline in this browser. You can choose a photo of yourself below instead, or allow the camera in your browser's site settings and reload the page.",
  /** The browser found no camera. */
  missing: "No camera was found on this device. Choose a photo of yourself below instead.",
  /** A camera is there but would not start (another app holds it, a hardware error). */
  busy: "The camera could not start: another app may be using it. Close it and try again, or choose a photo of yourself below.",
  /** Anything else. */
  failed: "The camera could not be opened. You can choose a photo of yourself below instead.",
} as const;
export type CameraProblem = keyof typeof CAMERA_MESSAGES;

/** The moderator's reject form. */
export const rejectVerificationSchema = z.object({
  reason: z.enum(REJECT_REASON_IDS, { error: VERIFICATION_MESSAGES.reason }),
});

/** What GET /my/verification answers. */
export interface VerificationView {
  status: VerificationStatus;
  pose: Pose;
  /** Why the last selfie was turned down, in plain words (rejected only). */
  reason?: string;
  /** Verification lost because every photo it was compared with has gone. */
  lost?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Appeals

export const APPEAL_TEXT_MAX = 2000;

export const APPEAL_MESSAGES = {
  text: "Please tell us why the decision should change.",
  long: `Your appeal may not be longer than ${APPEAL_TEXT_MAX} characters.`,
  nothing: "There is nothing to appeal: your account is in good standing.",
  once: "You have already appealed this decision.",
  sent: "Thank you. A moderator will review your appeal.",
  granted: "The appeal is granted and the measure lifted.",
  denied: "The appeal is denied; the member has been told.",
} as const;

/** POST /my/appeal. */
export const appealSchema = z.object({
  text: safeText(
    z
      .string({ error: APPEAL_MESSAGES.text })
      .trim()
      .min(1, APPEAL_MESSAGES.text)
      .max(APPEAL_TEXT_MAX, APPEAL_MESSAGES.long),
    { multiline: true },
  ),
});
export type AppealInput = z.infer<typeof appealSchema>;

export type AppealKind = "hidden" | "suspended";

/** What GET /my/appeal answers: the measure, why, and the member's appeal. */
export interface StandingView {
  measure: AppealKind | null;
  /** Why, in plain words: the kinds of reports that led to it (never who made them). */
  reasons: string[];
  appeal: { status: "open" | "granted" | "denied"; created_at: string } | null;
  can_appeal: boolean;
}
