/**
 * What moderators read of a kept conversation (app/server/evidence.server.ts): one message, who
 * wrote it (the reported member or the reporter), its text, when, and whether it was deleted.
 */
export interface EvidenceMessage {
  from: "reported" | "reporter";
  text: string;
  sent_at: string;
  deleted_at: string | null;
  /** A gift's name, for a gift. */
  gift: string | null;
  /** "photo" or "voice", for an attachment. */
  attachment: string | null;
}

/**
 * A copy of one of the reported member's photos, kept with a report (app/server/evidence.server.ts,
 * docs/decisions/049), as moderators see it.
 */
export interface KeptPhoto {
  id: string;
  /** Its place on the profile at the report (0: the main photo). */
  position: number;
  /** Where moderators read it (GET /moderation/reports/{id}/photos/{photoId}). */
  url: string;
  kept_at: string;
}
