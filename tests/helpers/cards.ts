import type { MemberCardView } from "~/lib/members";
import type { Profile } from "~/schemas/profile";

/**
 * Data as the API returns it, for the client state tests (plain objects: no Worker needed). Each
 * test overrides only what it is about.
 */

/** docs/api.md "Member card": a member with nothing filled in but the id (also the username). */
export const memberCard = (id: string, extra: Partial<MemberCardView> = {}): MemberCardView => ({
  id,
  username: id,
  firstName: null,
  age: 30,
  gender: null,
  location: { country: null, state: null, city: null },
  photo_url: null,
  photo_urls: null,
  online: false,
  last_seen_at: null,
  verified: false,
  ...extra,
});

/** GET /profile's `data` for a member who filled in the basics. */
export const storedProfile = (extra: Partial<Profile> = {}): Profile => ({
  id: "m1",
  email: "ada@example.test",
  email_verified_at: null,
  firstName: "Ada",
  lastName: null,
  username: "ada",
  dateOfBirth: "1990-01-01",
  location: null,
  postalCode: null,
  bio: "Hello",
  interests: ["Chess"],
  preferences: ["Friendship"],
  ageRange: { min: 25, max: 40 },
  gender: null,
  ethnicity: null,
  prompts: [],
  photos: [],
  ...extra,
});
