import { env } from "cloudflare:test";
import type { SearchCard, SearchMeta } from "~/schemas/search";
import type { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";

let counter = 0;

/** Today's date minus `years` (and `days`), as YYYY-MM-DD in UTC. */
export function bornYearsAgo(years: number, days = 0) {
  const now = new Date();
  const d = new Date(
    Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() - days),
  );
  return d.toISOString().slice(0, 10);
}

export interface MemberSeed {
  username?: string;
  firstName?: string | null;
  age?: number;
  gender?: string | null;
  ageMin?: number;
  ageMax?: number;
  country?: { isoCode: string; name: string } | null;
  state?: { isoCode: string; name: string } | null;
  city?: string | null;
  bio?: string;
  interests?: string[];
  verified?: boolean;
  status?: "active" | "suspended";
  lastSeenAt?: string | null;
  hideOnline?: boolean;
  photo?: boolean;
  /** The place's coordinates [latitude, longitude], as the profile stores them. */
  at?: [number, number] | null;
  /** Joined this many minutes ago (the newest order). */
  joinedMinutesAgo?: number;
}

/**
 * A member written straight into the database (users, photos, profiles), as the seed does: the
 * search triggers index them like any member. Fast, so a test can have dozens.
 */
export async function seedMember(seed: MemberSeed = {}) {
  counter += 1;
  const id = `m${counter}x${Math.random().toString(36).slice(2, 10)}`;
  const username = seed.username ?? `member_${counter}_${Math.random().toString(36).slice(2, 6)}`;
  const now = new Date().toISOString();
  const country = seed.country === undefined ? null : seed.country;
  const state = seed.state ?? null;
  const location = country
    ? {
        country,
        state: state ? { ...state, countryCode: country.isoCode } : null,
        city:
          state && seed.city
            ? { name: seed.city, countryCode: country.isoCode, stateCode: state.isoCode }
            : null,
      }
    : null;
  const statements = [
    env.DB.prepare(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at, status, hide_online, last_seen_at, created_at)
       VALUES (?1, ?2, ?3, 'x', ?4, ?5, ?6, ?7, ?8)`,
    ).bind(
      id,
      username,
      `${username}@example.test`,
      seed.verified === false ? null : now,
      seed.status ?? "active",
      seed.hideOnline ? 1 : 0,
      seed.lastSeenAt === undefined ? null : seed.lastSeenAt,
      new Date(Date.now() - (seed.joinedMinutesAgo ?? 0) * 60_000).toISOString(),
    ),
  ];
  if (seed.photo) {
    statements.push(
      env.DB.prepare(
        `INSERT INTO photos (id, user_id, r2_key, content_type, size, position, etag)
         VALUES (?1, ?2, ?3, 'image/png', 10, 0, 'e')`,
      ).bind(`p${id}`, id, `photos/${id}/p.png`),
    );
  }
  statements.push(
    env.DB.prepare(
      `INSERT INTO profiles (user_id, first_name, date_of_birth, bio, gender, interests, age_min, age_max,
         country_code, state_code, city_name, location, latitude, longitude)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)`,
    ).bind(
      id,
      seed.firstName ?? null,
      bornYearsAgo(seed.age ?? 30, 10),
      seed.bio ?? "",
      seed.gender ?? null,
      JSON.stringify(seed.interests ?? []),
      seed.ageMin ?? 18,
      seed.ageMax ?? 100,
      country?.isoCode ?? null,
      location?.state?.isoCode ?? null,
      location?.city?.name ?? null,
      location ? JSON.stringify(location) : null,
      seed.at?.[0] ?? null,
      seed.at?.[1] ?? null,
    ),
  );
  await env.DB.batch(statements);
  return { id, username };
}

/**
 * Members in bulk, two statements for all of them (the triggers still index each one): verified,
 * 30 years old, with `bio`, in `city` (Texas, US) when given, last seen as each row says.
 */
export async function seedBulk(
  rows: { id: string; username: string; last_seen_at: string }[],
  { bio, city = null }: { bio: string; city?: string | null },
) {
  const json = JSON.stringify(rows);
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO users (id, username, email, password_hash, email_verified_at, last_seen_at)
       SELECT j.value->>'id', j.value->>'username', (j.value->>'username') || '@example.test', 'x', ?2, j.value->>'last_seen_at'
       FROM json_each(?1) j`,
    ).bind(json, new Date().toISOString()),
    env.DB.prepare(
      `INSERT INTO profiles (user_id, date_of_birth, bio, country_code, state_code, city_name)
       SELECT j.value->>'id', ?2, ?3, iif(?4 IS NULL, NULL, 'US'), iif(?4 IS NULL, NULL, 'TX'), ?4
       FROM json_each(?1) j`,
    ).bind(json, bornYearsAgo(30, 3), bio, city),
  ]);
}

/** Many members at once (each one still goes through the triggers). */
export async function seedMembers(count: number, seed: MemberSeed = {}) {
  const out: { id: string; username: string }[] = [];
  for (let i = 0; i < count; i++) out.push(await seedMember(seed));
  return out;
}

/** A verified, signed-in member whose age and desired age range are set. */
export async function searcher({
  age = 30,
  ageMin = 18,
  ageMax = 100,
  subscribed = true,
}: { age?: number; ageMin?: number; ageMax?: number; subscribed?: boolean } = {}) {
  const member = await verifiedMember();
  await env.DB.prepare(
    "UPDATE profiles SET date_of_birth = ?1, age_min = ?2, age_max = ?3 WHERE user_id = ?4",
  )
    .bind(bornYearsAgo(age, 10), ageMin, ageMax, member.id)
    .run();
  // The advanced filters (interests, online now, with a photo) are a subscription perk.
  if (subscribed) {
    const res = await member.client.json("POST", "/my/subscription", {
      plan_id: "plus",
      billing_cycle: "monthly",
    });
    if (res.status !== 201) throw new Error(`subscribe failed: ${res.status}`);
  }
  return member;
}

export interface SearchBody {
  results: SearchCard[];
  meta: SearchMeta;
  message?: string;
  errors?: Record<string, string[]>;
}

export async function search(
  client: TestClient,
  body: {
    keywords?: string;
    filters?: Record<string, unknown>;
    per_page?: number;
    page?: number;
    cursor?: string | null;
  } = {},
  scope: "matches" | "dashboard" = "matches",
) {
  const path = scope === "matches" ? "/my/matches/search" : "/dashboard/search";
  return client.json<SearchBody>("POST", path, body);
}

/** Ids of the results of a search (first page, large enough for the test's members). */
export async function foundIds(
  client: TestClient,
  body: { keywords?: string; filters?: Record<string, unknown> } = {},
) {
  const res = await search(client, { ...body, per_page: 50 });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.results.map((r) => r.id);
}

export async function setUser(id: string, fields: Record<string, unknown>) {
  const keys = Object.keys(fields);
  await env.DB.prepare(
    `UPDATE users SET ${keys.map((k, i) => `${k} = ?${i + 1}`).join(", ")} WHERE id = ?${keys.length + 1}`,
  )
    .bind(...Object.values(fields), id)
    .run();
}

export async function setProfile(id: string, fields: Record<string, unknown>) {
  const keys = Object.keys(fields);
  await env.DB.prepare(
    `UPDATE profiles SET ${keys.map((k, i) => `${k} = ?${i + 1}`).join(", ")} WHERE user_id = ?${keys.length + 1}`,
  )
    .bind(...Object.values(fields), id)
    .run();
}

export const US = { isoCode: "US", name: "United States" };
export const SE = { isoCode: "SE", name: "Sweden" };
export const TEXAS = { isoCode: "TX", name: "Texas" };
export const OHIO = { isoCode: "OH", name: "Ohio" };
