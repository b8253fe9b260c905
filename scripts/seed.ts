/**
 * `npm run seed`: fills the local development database and photo bucket (the state `wrangler dev`
 * uses, under .wrangler/state/v3) with demo members, their profiles (prompt answers included) and
 * photos, and the demo account of scripts/lib/demo-account.ts, with likes (some with a comment),
 * matches and profile views of its own (scripts/lib/seed-demo-life.ts).
 *
 * Safe to run again: ids are derived from the usernames, rows are upserted (never replaced, so
 * nothing that references a member is cascaded away) and photos overwrite the same R2 keys. A
 * seeded member's profile, password and photos are reset to the seed's on every run.
 *
 * Needs the migrations applied first: `npm run db:migrate:local`.
 *
 *   npm run seed                 the 73 hand-written members plus the demo account
 *   npm run seed -- --count 500  more members, generated beyond the hand-written ones
 */
import { createHash } from "node:crypto";
import { eq, inArray, or, sql } from "drizzle-orm";
import { photoVerifications } from "../app/server/db/safety";
import type { BatchItem } from "drizzle-orm/batch";
import { getPlatformProxy } from "wrangler";
import { purchaseCredits } from "~/server/credits.server";
import { getDb, schema } from "~/server/db.server";
import type { Env } from "~/server/env.server";
import { hashPassword } from "~/server/password.server";
import { DEMO_EMAIL, DEMO_PASSWORD } from "./lib/demo-account";
import { buildMembers, ROSTER_SIZE, seedPhotoId, type SeedMember } from "./lib/members";
import { renderPortrait } from "./lib/portrait";
import { seedId } from "./lib/random";
import { DEMO_LIFE_MEMBERS, planDemoLife, seedDemoLife } from "./lib/seed-demo-life";
import { seedConversations } from "./lib/seed-conversations";

interface Bindings {
  DB: D1Database;
  PHOTOS: R2Bucket;
  APP_ENV: string;
  STRIPE_SECRET_KEY?: string;
}

/**
 * The demo account starts with credits, bought once through the test provider as any member
 * would (a real payment row, ledger entry and activity). Skipped when it has bought any already,
 * or when a Stripe key is configured (no test payments then).
 */
async function demoStartingCredits(env: Bindings): Promise<string> {
  if (env.STRIPE_SECRET_KEY) return "skipped (STRIPE_SECRET_KEY is set)";
  const demo = await env.DB.prepare("SELECT id, email FROM users WHERE email = ?1 COLLATE NOCASE")
    .bind(DEMO_EMAIL)
    .first<{ id: string; email: string }>();
  if (!demo) return "skipped (no demo account)";
  const bought = await env.DB.prepare("SELECT 1 AS x FROM payments WHERE user_id = ?1 LIMIT 1")
    .bind(demo.id)
    .first();
  if (bought) return "already bought";
  const res = await purchaseCredits(env as unknown as Env, demo, "popular", {
    success: "http://localhost:8787/my/credits/success",
    cancel: "http://localhost:8787/my/credits/cancel",
  });
  return "new_balance" in res ? `${res.new_balance} credits (a test purchase)` : "not completed";
}

/**
 * What the app's like and view rules get as their environment while seeding: the platform proxy's
 * D1, and, in place of the Worker's member hubs (MEMBER_HUB), hubs with no page open.
 *
 * No Worker runs while seeding and the platform proxy cannot reach the Worker's Durable Objects,
 * so no member has a page open to hear of a new notification. The Worker's hub does nothing for a
 * member without open pages; these hubs do the same for everyone, and say so. The notifications
 * themselves are stored in D1, and every page shows them when it loads. Only `publish` is
 * reachable from the like and view rules; anything else they asked of a hub would throw here.
 */
function withoutOpenPages(env: Bindings): { env: Env; pushed: () => number } {
  let frames = 0;
  const noOpenPages = {
    publish: async () => {
      frames += 1;
    },
  };
  const hubs = { idFromName: (name: string) => name, get: () => noOpenPages };
  return { env: { ...env, MEMBER_HUB: hubs } as unknown as Env, pushed: () => frames };
}

/**
 * The demo account's likes, matches and profile views (scripts/lib/seed-demo-life.ts), with
 * members of the ages it looks for, picked in a fixed order that mixes the roster's countries.
 */
async function demoLife(env: Bindings, members: SeedMember[], ids: Map<SeedMember, string>) {
  const demo = members.find((m) => m.demo);
  if (!demo) return "skipped (no demo account)";
  const candidates = members
    .filter((m) => !m.demo && m.age >= demo.ageRange.min && m.age <= demo.ageRange.max)
    .sort((a, b) =>
      seedId(`demo-life:${a.username}`).localeCompare(seedId(`demo-life:${b.username}`)),
    )
    .slice(0, DEMO_LIFE_MEMBERS)
    .map((m) => ids.get(m)!);
  const seeding = withoutOpenPages(env);
  const added = await seedDemoLife(seeding.env, ids.get(demo)!, planDemoLife(candidates));
  return (
    `${added.likesReceived} likes received, ${added.matches} matches, ` +
    `${added.likesGiven} likes given, ${added.views} profile views, ` +
    `${added.comments} like comments added ` +
    `(${seeding.pushed()} live updates for open pages dropped: none is open while seeding)`
  );
}

/**
 * Photo ids past a member's last seeded photo that an earlier seed may have written (docs/domain.md
 * "Profile and photos": ≤ 5).
 */
const MAX_PHOTOS = 5;
/** Members per D1 batch (each batch is one transaction). */
const BATCH_MEMBERS = 20;
/** R2 uploads in flight at once. */
const UPLOADS_IN_FLIGHT = 6;

class SeedError extends Error {}

function parseCount(argv: string[]): number {
  const i = argv.findIndex((a) => a === "--count" || a.startsWith("--count="));
  if (i === -1) return ROSTER_SIZE;
  const raw = argv[i]!.includes("=") ? argv[i]!.split("=")[1] : argv[i + 1];
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1) throw new SeedError(`--count wants a whole number`);
  return count;
}

const photoKey = (userId: string, photoId: string) => `photos/${userId}/${photoId}.png`;

async function requireTables(db: D1Database) {
  const { results } = await db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('users', 'profiles', 'photos')",
    )
    .all<{ name: string }>();
  const found = new Set(results.map((r) => r.name));
  const missing = ["users", "profiles", "photos"].filter((t) => !found.has(t));
  if (missing.length) {
    throw new SeedError(
      `The local database is missing the table(s) ${missing.join(", ")}. ` +
        `Apply the migrations first:\n\n` +
        `  npx wrangler d1 migrations apply DB --local     (or: npm run db:migrate:local)\n\n` +
        `then run the seed again.`,
    );
  }
}

/**
 * The id each member is written under: the seed's own id, unless an account with that username or
 * email already exists locally (registered by hand, say), which is then taken over by the seed.
 */
async function resolveIds(db: ReturnType<typeof getDb>, members: SeedMember[]) {
  const { users } = schema;
  const ids = new Map<SeedMember, string>();
  for (let i = 0; i < members.length; i += 40) {
    const chunk = members.slice(i, i + 40);
    const rows = await db
      .select({ id: users.id, username: users.username, email: users.email })
      .from(users)
      .where(
        or(
          inArray(
            sql`lower(${users.username})`,
            chunk.map((m) => m.username.toLowerCase()),
          ),
          inArray(
            sql`lower(${users.email})`,
            chunk.map((m) => m.email.toLowerCase()),
          ),
        ),
      )
      .all();
    for (const m of chunk) {
      const owners = new Set(
        rows
          .filter(
            (r) =>
              r.username.toLowerCase() === m.username.toLowerCase() ||
              r.email.toLowerCase() === m.email.toLowerCase(),
          )
          .map((r) => r.id),
      );
      if (owners.size > 1) {
        throw new SeedError(
          `Two existing accounts hold the seed's username "${m.username}" and email "${m.email}". ` +
            `Delete one of them (or the local state under .wrangler/) and seed again.`,
        );
      }
      ids.set(m, owners.size === 1 ? [...owners][0]! : m.id);
    }
  }
  return ids;
}

interface StoredPhoto {
  id: string;
  position: number;
  key: string;
  size: number;
  etag: string;
}

/** Draws and uploads every member's photos, a few uploads at a time. */
async function uploadPhotos(
  bucket: R2Bucket,
  members: SeedMember[],
  ids: Map<SeedMember, string>,
): Promise<Map<SeedMember, StoredPhoto[]>> {
  const stored = new Map<SeedMember, StoredPhoto[]>();
  const inFlight = new Set<Promise<void>>();
  for (const m of members) {
    const userId = ids.get(m)!;
    const list: StoredPhoto[] = [];
    stored.set(m, list);
    for (const photo of m.photos) {
      const bytes = renderPortrait(
        { key: m.username, gender: m.gender, ethnicity: m.ethnicity, age: m.age },
        photo.position,
      );
      const key = photoKey(userId, photo.id);
      const upload = bucket
        // An ArrayBuffer crosses the local proxy about twice as fast as a Uint8Array.
        .put(key, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), {
          httpMetadata: { contentType: "image/png" },
          customMetadata: { userId, photoId: photo.id },
        })
        .then((object) => {
          const etag = object?.etag ?? createHash("sha256").update(bytes).digest("hex");
          list.push({ id: photo.id, position: photo.position, key, size: bytes.length, etag });
        });
      const tracked = upload.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (inFlight.size >= UPLOADS_IN_FLIGHT) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
  return stored;
}

async function seed(env: Bindings, members: SeedMember[]) {
  await requireTables(env.DB);
  const db = getDb(env.DB);
  const { users, profiles, photos } = schema;
  const now = new Date().toISOString();

  const ids = await resolveIds(db, members);

  // Every member gets the demo password, hashed once and the same hash (salt included) stored for
  // all of them: acceptable for local demo data only, never for real accounts. It saves hashing
  // 100,000 PBKDF2 rounds per member on every run.
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const stored = await uploadPhotos(env.PHOTOS, members, ids);

  const staleKeys: string[] = [];
  for (let start = 0; start < members.length; start += BATCH_MEMBERS) {
    const statements: BatchItem<"sqlite">[] = [];
    for (const m of members.slice(start, start + BATCH_MEMBERS)) {
      const id = ids.get(m)!;
      const verifiedAt = new Date(Date.parse(m.createdAt) + 7 * 60_000).toISOString();
      const account = {
        username: m.username,
        email: m.email,
        passwordHash,
        emailVerifiedAt: verifiedAt,
        role: "member" as const,
        status: "active" as const,
        hideOnline: m.hideOnline,
        lastSeenAt: m.lastSeenAt,
        updatedAt: now,
      };
      statements.push(
        db
          .insert(users)
          .values({ id, ...account, createdAt: m.createdAt })
          .onConflictDoUpdate({ target: users.id, set: account }),
      );

      const profile = {
        firstName: m.firstName,
        lastName: m.lastName,
        dateOfBirth: m.dateOfBirth,
        bio: m.bio,
        gender: m.gender,
        ethnicity: m.ethnicity,
        interests: m.interests,
        preferences: m.preferences,
        prompts: m.prompts,
        ageMin: m.ageRange.min,
        ageMax: m.ageRange.max,
        countryCode: m.countryCode,
        stateCode: m.stateCode,
        cityName: m.cityName,
        location: m.location,
        postalCode: m.postalCode,
        latitude: m.latitude,
        longitude: m.longitude,
        updatedAt: now,
      };
      statements.push(
        db
          .insert(profiles)
          .values({ userId: id, ...profile })
          .onConflictDoUpdate({ target: profiles.userId, set: profile }),
      );

      for (const p of stored.get(m)!) {
        const row = {
          userId: id,
          r2Key: p.key,
          contentType: "image/png",
          size: p.size,
          position: p.position,
          etag: p.etag,
        };
        statements.push(
          db
            .insert(photos)
            .values({ id: p.id, ...row, createdAt: m.createdAt })
            .onConflictDoUpdate({ target: photos.id, set: row }),
        );
      }

      // Photos an earlier seed wrote past this member's current count.
      const stale: string[] = [];
      for (let i = m.photos.length; i < MAX_PHOTOS; i++) {
        const photoId = seedPhotoId(m.username, i);
        stale.push(photoId);
        staleKeys.push(photoKey(id, photoId));
      }
      if (stale.length) statements.push(db.delete(photos).where(inArray(photos.id, stale)));
    }
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  }
  for (let i = 0; i < staleKeys.length; i += 500) {
    await env.PHOTOS.delete(staleKeys.slice(i, i + 500));
  }

  // One member in four with photos shows the verified badge (docs/decisions/042), as if a
  // moderator had compared a selfie with the photos they have now.
  const verified = members.filter((m, i) => i % 4 === 0 && m.photos.length > 0);
  for (let start = 0; start < verified.length; start += BATCH_MEMBERS) {
    const statements: BatchItem<"sqlite">[] = [];
    for (const m of verified.slice(start, start + BATCH_MEMBERS)) {
      const id = ids.get(m)!;
      const decidedAt = new Date(Date.parse(m.createdAt) + 60 * 60_000).toISOString();
      statements.push(
        db
          .insert(photoVerifications)
          .values({
            id: `seed-verification-${id}`,
            userId: id,
            poseId: "peace",
            status: "verified",
            comparedPhotoIds: stored.get(m)!.map((p) => p.id),
            createdAt: m.createdAt,
            decidedAt,
          })
          .onConflictDoNothing(),
        db.update(users).set({ photoVerifiedAt: decidedAt }).where(eq(users.id, id)),
      );
    }
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  }

  const count = async (table: typeof users | typeof photos) =>
    (
      await db
        .select({ n: sql<number>`count(*)` })
        .from(table)
        .get()
    )?.n ?? 0;
  return {
    ids,
    photos: [...stored.values()].flat(),
    countries: new Set(members.map((m) => m.countryCode)).size,
    totalUsers: await count(users),
    totalPhotos: await count(photos),
  };
}

async function main() {
  const started = performance.now();
  const members = buildMembers({ count: parseCount(process.argv.slice(2)) });
  const proxy = await getPlatformProxy<Bindings>({ configPath: "wrangler.toml", persist: true });
  try {
    const result = await seed(proxy.env, members);
    const credits = await demoStartingCredits(proxy.env);
    const life = await demoLife(proxy.env, members, result.ids);
    // Messages live in the conversations' rooms: seeded through a running Worker.
    const chats = await seedConversations(process.env.SEED_BASE_URL ?? "http://localhost:8787");
    const bytes = result.photos.reduce((sum, p) => sum + p.size, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      [
        "",
        `Seeded ${members.length} members (${members.length - 1} + the demo account) ` +
          `from ${result.countries} countries.`,
        `  photos: ${result.photos.length} PNGs in R2, ${(bytes / 1024 / 1024).toFixed(1)} MB ` +
          `(largest ${Math.round(Math.max(...result.photos.map((p) => p.size)) / 1024)} KB)`,
        `  local database now holds ${result.totalUsers} users and ${result.totalPhotos} photos`,
        `  demo account credits: ${credits}`,
        `  demo account life: ${life}`,
        `  demo account conversations: ${chats}`,
        "",
        `Sign in with ${DEMO_EMAIL} / ${DEMO_PASSWORD}`,
        `(every seeded member, e.g. ${members[1]?.email}, has that password too)`,
        "",
        `Done in ${seconds} s.`,
      ].join("\n"),
    );
  } finally {
    await proxy.dispose();
  }
}

try {
  await main();
} catch (error) {
  if (error instanceof SeedError) {
    console.error(`\nSeed failed: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
}
