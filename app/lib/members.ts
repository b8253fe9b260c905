import type { PhotoUrls } from "./photos";
import type { ProfilePhoto } from "~/schemas/profile";
import type { PromptAnswer } from "~/schemas/prompt-catalog";

/** docs/api.md "Member card": how another member is shown wherever members are listed. */
export interface MemberCardView {
  id: string;
  username: string;
  firstName: string | null;
  age: number;
  gender: string | null;
  location: { country: string | null; state: string | null; city: string | null };
  /** The main photo's signed address at its largest width (`photo_urls` has each width). */
  photo_url: string | null;
  photo_urls: PhotoUrls | null;
  online: boolean;
  last_seen_at: string | null;
  /** A moderator matched the member's selfie with their profile photos. */
  verified: boolean;
}

/**
 * GET /members/{username}'s `member`: the card plus bio, interests, preferences, ageRange, prompts
 * (each with its text) and photos.
 */
export interface MemberProfileView extends MemberCardView {
  bio: string;
  interests: string[];
  preferences: string[];
  ageRange: { min: number; max: number };
  prompts: PromptAnswer[];
  /** Between the viewer's place and the member's, whole km, at least 1; null when either is unknown. */
  distance_km: number | null;
  /** The member is found in that place because they travel there. */
  travelling: boolean;
  photos: ProfilePhoto[];
}

/** The name a member goes by: their first name when they gave one, else their username. */
export const displayName = (m: { firstName: string | null; username: string }) =>
  m.firstName?.trim() || m.username;

/** "Austin, Texas, United States" from whichever parts are known; null when none are. */
export function locationLabel(location: {
  country: string | null;
  state: string | null;
  city: string | null;
}): string | null {
  const parts = [location.city, location.state, location.country].filter(Boolean);
  return parts.length ? parts.join(", ") : null;
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago", or a date for older times. */
export function timeAgo(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return "";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"} ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} day${days === 1 ? "" : "s"} ago`;
  return new Date(then).toLocaleDateString("en", {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });
}

/**
 * The common genders, offered by the profile's gender field and the search's gender filter (a
 * member's gender is free text).
 */
export const GENDER_OPTIONS = [
  "Woman",
  "Man",
  "Non-binary",
  "Trans woman",
  "Trans man",
  "Genderqueer",
  "Agender",
] as const;
