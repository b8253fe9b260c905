import { pageQuery } from "./query";

/**
 * The kinds of entry in a member's own history (the activities page). Each domain module records
 * its own kinds through `recordActivity()`; `data` carries what the page shows besides the other
 * member (a gift's name, credits bought, a plan).
 */
export const ACTIVITY_TYPES = [
  "like_sent",
  "like_received",
  "match",
  "gift_sent",
  "gift_received",
  "credits_purchased",
  "subscription_started",
  "subscription_changed",
  "subscription_cancelled",
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export const activitiesQuerySchema = pageQuery(20, 50);
