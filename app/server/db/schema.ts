import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/**
 * ISO-8601 UTC with milliseconds and a Z, as docs/api.md "Times, money and ids" requires (never
 * SQLite's "YYYY-MM-DD HH:MM:SS").
 */
const isoNow = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    username: text("username").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    emailVerifiedAt: text("email_verified_at"),
    role: text("role", { enum: ["member", "moderator"] })
      .notNull()
      .default("member"),
    status: text("status", { enum: ["active", "suspended"] })
      .notNull()
      .default("active"),
    hideOnline: integer("hide_online", { mode: "boolean" }).notNull().default(false),
    /**
     * Open reports weighing REPORT_HIDE_WEIGHT together hide the member from search until a
     * moderator reviews them. Kept by triggers on `reports` (migrations/0023_report_weights.sql).
     */
    hiddenByReports: integer("hidden_by_reports", { mode: "boolean" }).notNull().default(false),
    /**
     * Why moderators should look at this new account: it registered with the address of a member
     * deleted after reports or suspended (app/server/returning.server.ts); null once cleared.
     */
    reviewReason: text("review_reason", { enum: ["deleted_after_report", "suspended"] }),
    /**
     * When a moderator matched the member's selfie with their profile photos (photo verification,
     * app/server/verification.server.ts); null when not verified, or when every photo it was
     * compared with has gone (the trigger of migrations/0040_photo_verification.sql).
     */
    photoVerifiedAt: text("photo_verified_at"),
    lastSeenAt: text("last_seen_at"),
    /**
     * The guided first steps after verifying (photos, bio, interests, what they look for):
     * `pending` from registration until the member finishes them (`done`) or skips them for now
     * (`skipped`: discovery then nudges them back). Members from before onboarding existed, and rows
     * written straight into the database, are `done`.
     */
    onboarding: text("onboarding", { enum: ["pending", "skipped", "done"] })
      .notNull()
      .default("done"),
    passwordChangedAt: text("password_changed_at"),
    createdAt: text("created_at").notNull().default(isoNow),
    updatedAt: text("updated_at").notNull().default(isoNow),
  },
  (t) => [
    uniqueIndex("users_username_nocase").on(sql`${t.username} COLLATE NOCASE`),
    uniqueIndex("users_email_nocase").on(sql`${t.email} COLLATE NOCASE`),
    // The moderators' review queue: the few accounts in review, newest first.
    index("users_in_review")
      .on(t.createdAt)
      .where(sql`${t.reviewReason} IS NOT NULL`),
  ],
);

export const profiles = sqliteTable(
  "profiles",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    firstName: text("first_name"),
    lastName: text("last_name"),
    dateOfBirth: text("date_of_birth").notNull(),
    bio: text("bio").notNull().default(""),
    gender: text("gender"),
    ethnicity: text("ethnicity"),
    interests: text("interests", { mode: "json" }).$type<string[]>().notNull().default([]),
    preferences: text("preferences", { mode: "json" }).$type<string[]>().notNull().default([]),
    ageMin: integer("age_min").notNull().default(18),
    ageMax: integer("age_max").notNull().default(100),
    countryCode: text("country_code"),
    stateCode: text("state_code"),
    cityName: text("city_name"),
    location: text("location", { mode: "json" }).$type<ProfileLocation | null>(),
    postalCode: text("postal_code"),
    /**
     * The coordinates of the member's place (its city's; its state's or country's when it names no
     * city), from the location dataset, in degrees: never anything more precise (distance.server.ts).
     * Null without a place, or until the coordinate fill reaches the member.
     */
    latitude: real("latitude"),
    longitude: real("longitude"),
    /** Up to three answers to Heartline's prompts (app/schemas/prompts.ts), in the member's order. */
    prompts: text("prompts", { mode: "json" }).$type<ProfilePrompt[]>().notNull().default([]),
    /**
     * Travel (a subscriber perk): the place the member searches from and is found in while it is
     * set, and its coordinates. Cleared when the member ends it or their subscription ends.
     */
    travelCountryCode: text("travel_country_code"),
    travelStateCode: text("travel_state_code"),
    travelCityName: text("travel_city_name"),
    travelLocation: text("travel_location", { mode: "json" }).$type<ProfileLocation | null>(),
    travelLatitude: real("travel_latitude"),
    travelLongitude: real("travel_longitude"),
    travelStartedAt: text("travel_started_at"),
    updatedAt: text("updated_at").notNull().default(isoNow),
  },
  (t) => [
    index("profiles_country_state").on(t.countryCode, t.stateCode),
    // A keyword that is someone's first name (search relevance, docs/decisions/041).
    index("profiles_first_name").on(sql`lower(trim(${t.firstName}))`),
    // The coordinate fill's next members (a place, no coordinates yet).
    index("profiles_without_coordinates")
      .on(t.userId)
      .where(sql`${t.latitude} IS NULL AND ${t.countryCode} IS NOT NULL`),
  ],
);

export interface ProfilePrompt {
  prompt_id: string;
  answer: string;
}

export interface ProfileLocation {
  country: {
    isoCode: string;
    name: string;
    flag?: string;
    phonecode?: string;
    currency?: string;
    latitude?: string;
    longitude?: string;
  };
  state?: { isoCode: string; name: string; countryCode: string } | null;
  city?: { name: string; countryCode: string; stateCode: string } | null;
}

export const photos = sqliteTable(
  "photos",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    r2Key: text("r2_key").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    position: integer("position").notNull(),
    etag: text("etag").notNull(),
    createdAt: text("created_at").notNull().default(isoNow),
  },
  (t) => [index("photos_user_position").on(t.userId, t.position)],
);

/**
 * Who viewed whose profile: one row per viewer, viewed member and UTC day (YYYY-MM-DD). A repeat
 * view on the same day moves `viewed_at` forward instead of adding a row.
 */
export const profileViews = sqliteTable(
  "profile_views",
  {
    viewerId: text("viewer_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    viewedId: text("viewed_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    day: text("day").notNull(),
    viewedAt: text("viewed_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.viewedId, t.viewerId, t.day] }),
    index("profile_views_viewed_at").on(t.viewedId, t.viewedAt),
    index("profile_views_viewer").on(t.viewerId),
    index("profile_views_day").on(t.day),
  ],
);

export const sessions = sqliteTable(
  "sessions",
  {
    /** SHA-256 of the cookie value: a leaked table does not leak usable sessions. */
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    remember: integer("remember", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    lastActiveAt: text("last_active_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    passwordConfirmedAt: text("password_confirmed_at"),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [
    index("sessions_user").on(t.userId),
    index("sessions_expires_at").on(t.expiresAt),
    index("sessions_idle").on(t.remember, t.lastActiveAt),
  ],
);

export const passwordResetTokens = sqliteTable(
  "password_reset_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [
    index("password_reset_tokens_user").on(t.userId),
    index("password_reset_tokens_expires_at").on(t.expiresAt),
  ],
);

export const rateLimits = sqliteTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull(),
    /** The previous window's count, for the sliding-window estimate (docs/decisions/009). */
    prevCount: integer("prev_count").notNull().default(0),
  },
  (t) => [index("rate_limits_window_start").on(t.windowStart)],
);

/** Local-development mailbox: where the mail module puts emails when MAIL_TRANSPORT is "mailbox". */
export const devMailbox = sqliteTable(
  "dev_mailbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    /** Headers of the email beyond From, To and Subject (List-Unsubscribe…), as JSON. */
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>(),
    sentAt: text("sent_at").notNull(),
  },
  (t) => [index("dev_mailbox_sent").on(t.sentAt)],
);

/**
 * Where a background job that walks a table once stands (worker/scheduled.ts): the id it goes on
 * after, and when it reached the end. Today one job: cleaning the photos stored before uploads
 * were cleaned (`clean_stored_photos`, docs/decisions/020).
 */
export const jobCursors = sqliteTable("job_cursors", {
  name: text("name").primaryKey(),
  cursor: text("cursor"),
  finishedAt: text("finished_at"),
  updatedAt: text("updated_at").notNull(),
});
