import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./schema";

/**
 * The search index: one row per searchable member (active, email verified, with a
 * profile) and version, kept in step with users, profiles and photos by the triggers of the
 * `discovery_fts` migration (never written by application code). Its columns copy what the
 * filters need, so that every filter combination is answered from this table and its indexes.
 *
 * `sort_key` is the row id and the order of results (highest first):
 *   ((bucket * 4 + completeness) << 30) + n
 * where `bucket` is the hour (since the epoch) of the member's last activity (the day's first hour
 * for members who hide their online status), `completeness` counts photo, bio and interests (0-3)
 * and `n` numbers the rows of one bucket in the order they were made. Because the key is the row
 * id, the full-text table (whose row ids are the same keys) returns matches in result order.
 *
 * A member's key changes only when their bucket or completeness does: the current row is then
 * closed (`valid_to`) and a new one opened (`valid_from`), so a search that started at time T pages
 * through the rows valid at T and never shows a member twice or skips one. Closed rows are
 * removed a day later. Other profile changes update every row of the member in place.
 */
export const memberSearch = sqliteTable(
  "member_search",
  {
    sortKey: integer("sort_key").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Epoch milliseconds (the database clock) from which this row is the member's current one. */
    validFrom: integer("valid_from").notNull(),
    /** Epoch milliseconds at which a newer row replaced this one; null for the current row. */
    validTo: integer("valid_to"),
    bucket: integer("bucket").notNull(),
    completeness: integer("completeness").notNull(),
    /** Date of birth, YYYY-MM-DD. */
    birth: text("birth").notNull(),
    /** Lower-cased. */
    gender: text("gender"),
    country: text("country"),
    state: text("state"),
    /** Lower-cased city name. */
    city: text("city"),
    ageMin: integer("age_min").notNull(),
    ageMax: integer("age_max").notNull(),
    hasPhoto: integer("has_photo").notNull(),
    /**
     * The member's place (their travel place while they travel) as a point on the unit sphere, so
     * that a radius is a dot product (app/lib/distance.ts); null without coordinates.
     */
    x: real("x"),
    y: real("y"),
    z: real("z"),
    /** The place's one-degree grid cell (app/lib/distance.ts, cellOf); null without one. */
    cell: integer("cell"),
    /** When the member signed up, epoch seconds: the "newest" order (search/newest.server.ts). */
    joined: integer("joined").notNull().default(0),
  },
  (t) => {
    // Every filter column after the leading ones, so that counting and narrow searches are read
    // from the index alone (the row id, i.e. the sort key, is part of every index entry).
    const rest = [t.ageMin, t.ageMax, t.hasPhoto, t.validTo, t.validFrom, t.userId] as const;
    return [
      index("member_search_user").on(t.userId, t.validTo),
      index("member_search_closed")
        .on(t.validTo)
        .where(sql`${t.validTo} IS NOT NULL`),
      index("member_search_by_age").on(t.birth, t.gender, ...rest),
      // A narrow age range: one search per lower bound that admits the searcher's age
      // (docs/decisions/010), so that members whose range cannot hold it are never read.
      index("member_search_by_age_min").on(
        t.ageMin,
        t.birth,
        t.ageMax,
        t.gender,
        t.hasPhoto,
        t.validTo,
        t.validFrom,
        t.userId,
      ),
      index("member_search_by_gender").on(t.gender, t.birth, ...rest),
      index("member_search_by_country").on(t.country, t.birth, t.gender, ...rest),
      index("member_search_by_state").on(t.country, t.state, t.birth, t.gender, ...rest),
      index("member_search_by_city").on(t.country, t.state, t.city, t.birth, t.gender, ...rest),
      // A place or a gender alone, then (implicitly) the row id: the rows of one partition in key
      // order, which a first page walks from the top (docs/decisions/010).
      index("member_search_in_country").on(t.country),
      index("member_search_in_state").on(t.country, t.state),
      index("member_search_in_city").on(t.country, t.state, t.city),
      index("member_search_of_gender").on(t.gender),
      // A radius: the cells it overlaps, then what its conditions read, point included
      // (docs/decisions/040).
      index("member_search_by_cell").on(t.cell, t.birth, t.gender, ...rest, t.x, t.y, t.z),
      // Newest members first, then result order.
      index("member_search_newest").on(t.joined),
      // The members of one place, in key order: a page sorted by distance reads place by place.
      index("member_search_at_point").on(t.x, t.y, t.z),
    ];
  },
);

/**
 * Every place some member has been found in (their own or their travel place), as a point on the
 * unit sphere with its cell: where a search sorted by distance finds the places in its radius,
 * nearest first, before it reads their members (search/near.server.ts). Written by the search
 * triggers (migrations/0033); a place nobody is in any more stays and finds nobody.
 */
export const memberPlaces = sqliteTable(
  "member_places",
  {
    id: integer("id").primaryKey(),
    x: real("x").notNull(),
    y: real("y").notNull(),
    z: real("z").notNull(),
    cell: integer("cell").notNull(),
  },
  (t) => [
    uniqueIndex("member_places_point").on(t.x, t.y, t.z),
    index("member_places_by_cell").on(t.cell, t.x, t.y, t.z),
  ],
);

/**
 * A rebuild of the full-text rows under way (docs/decisions/050): present while one is wanted, with
 * the sort key it has reached. Migrations 0017, 0019 and 0020 change what the full-text rows hold;
 * on a database with members they mark the rows for a rebuild here instead of writing every row
 * again in one statement (164 s at a million members, past D1's 30 s limit), and housekeeping
 * writes them again in batches by sort key (app/server/search/text-rebuild.server.ts). One row,
 * id 1.
 */
export const searchTextRebuild = sqliteTable("search_text_rebuild", {
  id: integer("id").primaryKey(),
  after: integer("after").notNull().default(0),
  startedAt: text("started_at").notNull(),
});
