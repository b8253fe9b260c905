import { applyD1Migrations, env, type D1Migration } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hashPassword } from "~/server/password.server";
import { signInAs } from "../helpers/auth";
import { conversations, page } from "../chat/helpers";
import { search } from "../discovery/fixtures";
import { rebuildSearchText } from "~/server/search/text-rebuild.server";
import releases from "./releases.json";

/**
 * Every earlier release upgrades in one go (docs/decisions/024): a database built exactly as the
 * release left it (its migration files, from tests/upgrade/releases.json, written by
 * scripts/release-fixtures.ts), filled with what the release's schema holds, then today's
 * migrations over it: the data is there and today's code works on it. Releases with the same
 * migrations share one database build.
 */

interface Release {
  tag: string;
  commit: string;
  migrations: string[];
  changed: { name: string; queries: string[] }[];
}

const groups = new Map<string, Release[]>();
for (const release of releases as Release[]) {
  const key = JSON.stringify([release.migrations, release.changed]);
  groups.set(key, [...(groups.get(key) ?? []), release]);
}
const cases = [...groups.values()].map((same) => ({
  tags: same.map((r) => r.tag).join(", "),
  release: same[0]!,
}));

/** The release's migrations: today's files of the same name, or the release's own statements. */
function migrationsOf(release: Release): D1Migration[] {
  return release.migrations.map((name) => {
    const own = release.changed.find((m) => m.name === name);
    if (own) return own;
    const today = env.TEST_MIGRATIONS.find((m) => m.name === name);
    if (!today) throw new Error(`${release.tag}: ${name} is neither today's nor in the fixture`);
    return today;
  });
}

/** An empty database: no table, view, trigger or migration record left. */
async function wipe() {
  const objects = async () =>
    (
      await env.DB.prepare(
        `SELECT type, name, sql FROM sqlite_master
         WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND type IN ('table', 'view', 'trigger')`,
      ).all<{ type: string; name: string; sql: string | null }>()
    ).results;
  const drop = (type: string, name: string) =>
    env.DB.prepare(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`).run();
  for (const o of await objects()) if (o.type !== "table") await drop(o.type, o.name);
  for (const o of await objects())
    if (o.sql?.startsWith("CREATE VIRTUAL")) await drop(o.type, o.name);
  // Tables that others reference go once those are gone.
  for (let round = 0; round < 10; round++) {
    const left = await objects();
    if (left.length === 0) return;
    for (const o of left) await drop(o.type, o.name).catch(() => undefined);
  }
  throw new Error(`could not empty the database: ${(await objects()).map((o) => o.name)}`);
}

async function columnsOf(table: string): Promise<Set<string>> {
  const { results } = await env.DB.prepare("SELECT name FROM pragma_table_info(?1)")
    .bind(table)
    .all<{ name: string }>();
  return new Set(results.map((r) => r.name));
}

/** Inserts the row's columns that the table has at this release; nothing when it has no table. */
async function insert(table: string, row: Record<string, unknown>): Promise<boolean> {
  const columns = await columnsOf(table);
  if (columns.size === 0) return false;
  const names = Object.keys(row).filter((name) => columns.has(name));
  await env.DB.prepare(
    `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map((_, i) => `?${i + 1}`).join(", ")})`,
  )
    .bind(...names.map((name) => row[name]))
    .run();
  return true;
}

const PASSWORD = "correct horse battery";
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute)).toISOString();

/** What a release's members left: three members, profiles, a match, a subscription, a chat. */
async function fill(tag: string) {
  const word = `upgradeword${tag.replace(/\D/g, "")}x${Math.random().toString(36).slice(2, 7)}`;
  const passwordHash = await hashPassword(PASSWORD);
  const member = (name: string, role = "member") => ({
    id: `${name}-${tag}`,
    username: `${name}_${tag.replace(/\W/g, "")}`,
    email: `${name}.${tag}@example.test`,
    password_hash: passwordHash,
    email_verified_at: at(1),
    role,
    status: "active",
    created_at: at(0),
    updated_at: at(0),
  });
  const alice = member("alice");
  const bob = member("bob");
  const mod = member("mod", "moderator");
  for (const [user, bio] of [
    [alice, "Hiking and coffee."],
    [bob, `Likes ${word} and long walks.`],
    [mod, ""],
  ] as const) {
    await insert("users", user);
    await insert("profiles", {
      user_id: user.id,
      first_name: user.username.split("_")[0],
      date_of_birth: "1994-05-06",
      bio,
      gender: user === alice ? "woman" : "man",
      interests: JSON.stringify(["hiking"]),
      preferences: "[]",
      age_min: 18,
      age_max: 99,
      updated_at: at(2),
    });
  }
  await insert("likes", { liker_id: alice.id, liked_id: bob.id, created_at: at(3) });
  await insert("likes", { liker_id: bob.id, liked_id: alice.id, created_at: at(4) });
  const subscribed = await insert("subscriptions", {
    user_id: alice.id,
    plan_id: "plus",
    billing_cycle: "monthly",
    status: "active",
    provider: "test",
    current_period_start: new Date(Date.now() - 86_400_000).toISOString(),
    current_period_end: new Date(Date.now() + 29 * 86_400_000).toISOString(),
  });
  // A conversation; before the rooms, its messages and list state lived in D1.
  const conversation = `conv-${tag}`;
  const [low, high] = [alice.id, bob.id].sort();
  await insert("conversations", {
    id: conversation,
    user_low: low,
    user_high: high,
    created_by: alice.id,
    created_at: at(5),
  });
  for (const user of [alice, bob]) {
    await insert("conversation_members", {
      conversation_id: conversation,
      user_id: user.id,
      listed: 1,
      archived_at: null,
      last_activity_at: at(8),
      last_read_seq: user === alice ? 3 : 1,
    });
  }
  const texts = ["Hi Bob", "Hi Alice!", "Coffee on Sunday?"];
  let d1Messages = 0;
  for (const [i, message] of texts.entries()) {
    const stored = await insert("messages", {
      id: `msg-${tag}-${i + 1}`,
      conversation_id: conversation,
      seq: i + 1,
      sender_id: i % 2 ? bob.id : alice.id,
      client_id: `client-${tag}-${i + 1}`,
      message,
      sent_at: at(6 + i),
      read_at: i + 1 <= 1 ? at(9) : null,
    });
    if (stored) d1Messages += 1;
  }
  return { alice, bob, mod, word, subscribed, conversation, texts, d1Messages };
}

describe("upgrading a database of each earlier release through today's migrations", () => {
  it("covers a release from before the rooms (0014) and every tagged release", () => {
    expect(cases.some((c) => !c.release.migrations.some((m) => m.startsWith("0014")))).toBe(true);
    expect((releases as Release[]).length).toBeGreaterThanOrEqual(cases.length);
  });

  it.each(cases)(
    "$tags: the data survives and today's code works on it",
    async ({ release }) => {
      await wipe();
      await applyD1Migrations(env.DB, migrationsOf(release));
      const data = await fill(release.tag);
      await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

      // Every migration of today is applied, and the members are as they were.
      const applied = await env.DB.prepare("SELECT name FROM d1_migrations ORDER BY id").all<{
        name: string;
      }>();
      expect(applied.results.map((r) => r.name)).toEqual(env.TEST_MIGRATIONS.map((m) => m.name));
      const users = await env.DB.prepare(
        "SELECT id, username, email, role, onboarding FROM users ORDER BY id",
      ).all();
      expect(users.results).toEqual(
        [data.alice, data.bob, data.mod]
          .map(({ id, username, email, role }) => ({
            id,
            username,
            email,
            role,
            onboarding: "done",
          }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      );

      // The moderator signs in and runs the chat step: D1's old messages go into their room.
      const mod = (await signInAs(data.mod.email, PASSWORD)).client;
      const step = await mod.json("POST", "/admin/chat/migrate", {});
      expect(step).toMatchObject({
        status: 200,
        body: { conversations: 1, messages: data.d1Messages, next_cursor: null },
      });

      const alice = (await signInAs(data.alice.email, PASSWORD)).client;
      const list = await conversations(alice);
      expect(list.status).toBe(200);
      const messages = await page(alice, data.conversation, "after=0");
      expect(messages.status).toBe(200);
      if (data.d1Messages > 0) {
        expect(messages.body.messages.map((m) => m.message)).toEqual(data.texts);
        expect(list.body.conversations).toMatchObject([
          { id: data.conversation, last_message: data.texts.at(-1), unread_count: 0 },
        ]);
        const bob = (await signInAs(data.bob.email, PASSWORD)).client;
        expect((await conversations(bob)).body.conversations).toMatchObject([
          { id: data.conversation, unread_count: 1 },
        ]);
      }
      // A new message follows the old ones.
      const sent = await alice.json<{ message: { seq: number } }>(
        "POST",
        `/chat/conversations/${data.conversation}/messages`,
        { message: "See you there" },
      );
      expect(sent).toMatchObject({ status: 201, body: { message: { seq: data.d1Messages + 1 } } });

      // A release from before 0020 has its full-text rows written again by housekeeping, in
      // batches (docs/decisions/050); one that applied 0020 as it was has them already.
      const mark = () =>
        env.DB.prepare("SELECT after FROM search_text_rebuild WHERE id = 1").first();
      const applied020 = release.migrations.includes("0020_search_place_gender.sql");
      expect(await mark()).toEqual(applied020 ? null : { after: 0 });
      while (!(await rebuildSearchText(env, 1)).done);
      expect(await mark()).toBeNull();

      // Search finds the other member; the match and the subscription are still there.
      const found = await search(alice, { keywords: data.word });
      expect(found.status).toBe(200);
      expect(found.body.results.map((r) => r.id)).toEqual([data.bob.id]);
      const likes = await alice.json<{ matches?: { id: string }[] }>("GET", "/my/likes");
      expect(likes.body.matches?.map((m) => m.id)).toEqual([data.bob.id]);
      if (data.subscribed) {
        const status = await alice.json<{
          currentSubscription: { status: string; plan: { id: string } } | null;
        }>("GET", "/my/subscription/status");
        expect(status.body.currentSubscription).toMatchObject({
          status: "active",
          plan: { id: "plus" },
        });
      }
    },
    60_000,
  );
});
