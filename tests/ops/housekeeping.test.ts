import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RETENTION } from "~/server/housekeeping.server";
import { SESSION_POLICY } from "~/server/session.server";
import worker from "../../worker/index";
import { registerMember } from "../helpers/members";

/** The clock of every run: the trigger's scheduledTime. */
const NOW = Date.parse("2027-06-01T12:00:00.000Z");
const DAY = 24 * 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

let infoLines: Record<string, unknown>[] = [];

beforeEach(() => {
  infoLines = [];
  vi.spyOn(console, "info").mockImplementation((line: unknown) => {
    infoLines.push(JSON.parse(String(line)) as Record<string, unknown>);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function runCron(overrides: Partial<Cloudflare.Env> = {}, scheduledTime = NOW) {
  const controller = createScheduledController({ scheduledTime, cron: "*/15 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
}

const q = (query: string, ...values: unknown[]) =>
  env.DB.prepare(query)
    .bind(...values)
    .run();
const ids = async (query: string) =>
  (await env.DB.prepare(query).all<{ id: string }>()).results.map((r) => r.id).sort();

const jobLine = (job: string) => infoLines.find((l) => l.event === "housekeeping" && l.job === job);

describe("the scheduled housekeeping", () => {
  it("prunes each table by its rule and keeps what the rule keeps", async () => {
    const a = (await registerMember()).id;
    const b = (await registerMember()).id;
    await env.DB.batch([
      env.DB.prepare("DELETE FROM sessions"),
      env.DB.prepare("DELETE FROM rate_limits"),
    ]);

    // rate_limits: window_start in seconds.
    const windowCut = Math.floor((NOW - RETENTION.rateLimitWindowsMs) / 1000);
    await q(
      "INSERT INTO rate_limits (key, window_start, count) VALUES ('old', ?1, 1), ('kept', ?2, 1)",
      windowCut - 1,
      windowCut,
    );

    // sessions: absolute expiry, and idling by kind.
    const session = (id: string, remember: number, lastActive: number, expires: number) =>
      q(
        `INSERT INTO sessions (id_hash, user_id, remember, created_at, last_active_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
        id,
        a,
        remember,
        iso(lastActive - DAY),
        iso(lastActive),
        iso(expires),
      );
    await session("expired", 1, NOW - 60_000, NOW - 1);
    await session("idle-standard", 0, NOW - SESSION_POLICY.standard.idleMs - 1, NOW + DAY);
    await session("active-standard", 0, NOW - SESSION_POLICY.standard.idleMs + 60_000, NOW + DAY);
    await session("idle-remember", 1, NOW - SESSION_POLICY.remember.idleMs - 1, NOW + DAY);
    await session("active-remember", 1, NOW - 3 * DAY, NOW + DAY);

    // password_reset_tokens: a day past their expiry.
    const tokenCut = NOW - RETENTION.resetTokensAfterExpiryMs;
    await q(
      `INSERT INTO password_reset_tokens (token_hash, user_id, created_at, expires_at)
       VALUES ('old', ?1, ?2, ?2), ('kept', ?1, ?3, ?3)`,
      a,
      iso(tokenCut - 1),
      iso(tokenCut + 60_000),
    );

    // stripe_events.
    const eventCut = NOW - RETENTION.stripeEventsMs;
    await q(
      `INSERT INTO stripe_events (id, type, received_at) VALUES ('evt_old', 't', ?1), ('evt_kept', 't', ?2)`,
      iso(eventCut - 1),
      iso(eventCut + 60_000),
    );

    // profile_views by day.
    const viewCut = NOW - RETENTION.profileViewsMs;
    const day = (ms: number) => iso(ms).slice(0, 10);
    await q(
      `INSERT INTO profile_views (viewer_id, viewed_id, day, viewed_at)
       VALUES (?1, ?2, ?3, ?4), (?1, ?2, ?5, ?6)`,
      a,
      b,
      day(viewCut - DAY),
      iso(viewCut - DAY),
      day(viewCut + DAY),
      iso(viewCut + DAY),
    );

    // activities.
    const activityCut = NOW - RETENTION.activitiesMs;
    await q(
      `INSERT INTO activities (id, user_id, type, data, created_at, seq)
       VALUES ('act-old', ?1, 'match', '{}', ?2, 1), ('act-kept', ?1, 'match', '{}', ?3, 2)`,
      a,
      iso(activityCut - 1),
      iso(activityCut + 60_000),
    );

    await runCron();

    expect(await ids("SELECT key AS id FROM rate_limits")).toEqual(["kept"]);
    expect(await ids("SELECT id_hash AS id FROM sessions")).toEqual([
      "active-remember",
      "active-standard",
    ]);
    expect(await ids("SELECT token_hash AS id FROM password_reset_tokens")).toEqual(["kept"]);
    expect(await ids("SELECT id FROM stripe_events")).toEqual(["evt_kept"]);
    expect(await ids("SELECT day AS id FROM profile_views")).toEqual([day(viewCut + DAY)]);
    expect(await ids("SELECT id FROM activities WHERE user_id = '" + a + "'")).toEqual([
      "act-kept",
    ]);

    for (const job of [
      "rate_limits",
      "sessions_expired",
      "sessions_idle",
      "password_reset_tokens",
      "stripe_events",
      "profile_views",
      "activities",
      "subscriptions_expired",
      "search_fts_merge",
    ]) {
      expect(jobLine(job), job).toMatchObject({ level: "info", done: true });
    }
    expect(jobLine("sessions_idle")).toMatchObject({ deleted: 2 });
  });

  it("deletes in bounded batches and leaves the rest for the next run", async () => {
    await q("DELETE FROM rate_limits");
    const old = Math.floor((NOW - RETENTION.rateLimitWindowsMs) / 1000) - 10;
    for (let i = 0; i < 7; i++) {
      await q(
        "INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)",
        `k${i}`,
        old,
      );
    }
    const statements: string[] = [];
    const counting = new Proxy(env.DB, {
      get(target, prop, receiver) {
        if (prop === "prepare") {
          return (query: string) => {
            statements.push(query);
            return target.prepare(query);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });

    await runCron({ HOUSEKEEPING_BATCH: "3/2", DB: counting });
    expect(jobLine("rate_limits")).toMatchObject({ deleted: 6, batches: 2, done: false });
    expect(statements.filter((s) => /DELETE FROM "rate_limits"/.test(s))).toHaveLength(2);
    for (const s of statements.filter((s) => s.startsWith("DELETE"))) {
      expect(s).toMatch(/LIMIT \?/);
    }
    const left = await env.DB.prepare("SELECT count(*) AS n FROM rate_limits").first<{
      n: number;
    }>();
    expect(left?.n).toBe(1);

    infoLines = [];
    await runCron({ HOUSEKEEPING_BATCH: "3/2" });
    expect(jobLine("rate_limits")).toMatchObject({ deleted: 1, batches: 1, done: true });

    // A batch of no rows is no bound: the defaults apply.
    await q("INSERT INTO rate_limits (key, window_start, count) VALUES ('k7', ?1, 1)", old);
    infoLines = [];
    await runCron({ HOUSEKEEPING_BATCH: "0/2" });
    expect(jobLine("rate_limits")).toMatchObject({ deleted: 1, batches: 1, done: true });
    const none = await env.DB.prepare("SELECT count(*) AS n FROM rate_limits").first<{
      n: number;
    }>();
    expect(none?.n).toBe(0);
  });

  it("marks subscriptions expired once their period ended past the grace", async () => {
    const over = (await registerMember()).id;
    const grace = (await registerMember()).id;
    const current = (await registerMember()).id;
    const sub = (user: string, status: string, end: number) =>
      q(
        `INSERT INTO subscriptions (user_id, plan_id, billing_cycle, status, provider,
           current_period_start, current_period_end)
         VALUES (?1, 'plus', 'monthly', ?2, 'stripe', ?3, ?4)`,
        user,
        status,
        iso(end - 30 * DAY),
        iso(end),
      );
    await sub(over, "active", NOW - RETENTION.subscriptionGraceMs - 1);
    await sub(grace, "cancelled", NOW - RETENTION.subscriptionGraceMs + 60_000);
    await sub(current, "active", NOW + 10 * DAY);

    await runCron();

    const status = async (user: string) =>
      (await env.DB.prepare("SELECT status FROM subscriptions WHERE user_id = ?1")
        .bind(user)
        .first<{ status: string }>())!.status;
    expect(await status(over)).toBe("expired");
    expect(await status(grace)).toBe("cancelled");
    expect(await status(current)).toBe("active");
  });

  it("runs nothing in production with a development setting, and says why", async () => {
    await q("DELETE FROM rate_limits");
    await q("INSERT INTO rate_limits (key, window_start, count) VALUES ('stale', 0, 1)");
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await runCron({ APP_ENV: "production", MAIL_TRANSPORT: "resend" });
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM rate_limits").first<{ n: number }>(),
    ).toEqual({ n: 1 });
    const line = JSON.parse(String(errors.mock.calls[0]?.[0])) as Record<string, unknown>;
    expect(line).toMatchObject({ event: "config_refused" });
  });
});
