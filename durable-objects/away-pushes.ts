import {
  awayPayload,
  awayPushDelayMs,
  awayPushOptions,
  callTag,
  conversationTag,
  fold,
  isCallKind,
  loadActorName,
  loadPushContext,
  withheld,
  type AwayEvent,
  type AwayFold,
  type PushContext,
} from "~/server/away.server";
import {
  awayEmailDelayMs,
  composeDigest,
  digestIntervalMs,
  digestWanted,
  type UnreadConversation,
} from "~/server/digest.server";
import { RING_TIMEOUT_MS } from "~/realtime/chat";
import type { Env } from "~/server/env.server";
import { queueEmail } from "~/server/mail.server";
import { logFailure } from "~/server/log.server";
import { count } from "~/server/metrics.server";
import { sendPushTo } from "~/server/push.server";

export const AWAY_SCHEMA = [
  // What happened per tag since the member left (away.server.ts AwayFold, as JSON), when its last
  // push went, and when the next one is due (null: nothing new since the last one).
  `CREATE TABLE IF NOT EXISTS away_push (
     tag TEXT PRIMARY KEY, fold TEXT NOT NULL, sent_at INTEGER, due_at INTEGER,
     failures INTEGER NOT NULL DEFAULT 0)`,
  "CREATE INDEX IF NOT EXISTS away_push_due ON away_push (due_at) WHERE due_at IS NOT NULL",
  // The names of the members who wrote to this one, as pushes show them.
  `CREATE TABLE IF NOT EXISTS contact_name (id TEXT PRIMARY KEY, name TEXT NOT NULL)`,
];

/**
 * Storage keys: the member's id, when their last page closed, their push context, the origin of
 * their pages, and their email digest's state.
 */
const MEMBER_KEY = "away:member";
const AWAY_SINCE_KEY = "away:since";
const CONTEXT_KEY = "away:context";
const ORIGIN_KEY = "away:origin";
const DIGEST_KEY = "away:digest";

/** The email digest: when the next one is due (null: nothing unseen), when the last one went. */
interface DigestState {
  due: number | null;
  last: number | null;
}

type FoldRow = {
  tag: string;
  fold: string;
  sent_at: number | null;
  due_at: number | null;
  failures: number;
};

/**
 * A push no browser took because its push service failed (a timeout, 429, 5xx) is tried again
 * after these waits, then given up (the in-app notification and the digest still tell it).
 */
export const PUSH_RETRY_MS = [2_000, 15_000, 60_000];

/**
 * The hub's copy of the member's browsers and settings is read again after this long even when
 * nothing said it changed (a session that expired took its browser's subscription with it).
 */
export const CONTEXT_MAX_AGE_MS = 60 * 60 * 1000;

type HeldContext = PushContext & { loaded_at: number };

/**
 * The away-push half of a member's hub (docs/decisions/033): what happened under each tag while
 * the member is away, and the alarm that sends. The hub tells it when a page opens (`here`: every
 * fold goes, the member sees it all) and when the last one closes (`left`).
 *
 * A tag's first event sends at once when the member has been away for the delay (else when the
 * delay since their last page closed ends); what follows within the delay after a push waits and
 * goes as one push that replaces it. Every send goes through the alarm, so that one that fails
 * with the object is retried, and a request that caused it never waits for a push service.
 *
 * The member's browsers and settings are held here (`away:context`), read from D1 once and again
 * only after they changed (`invalidate`), so that deciding and sending a push reads nothing from
 * D1; the names of members who write are kept as they arrive.
 *
 * The email digest (digest.server.ts, docs/decisions/034) is due AWAY_EMAIL_DELAY_SECONDS after
 * the first thing the member has not seen, and no sooner than EMAIL_DIGEST_INTERVAL_SECONDS after
 * the last digest; coming back cancels it. The same alarm sends it, through the email queue.
 */
export class AwayPushes {
  private context: HeldContext | null = null;
  /** Bumped by every invalidation: a D1 read that started before it is not kept. */
  private generation = 0;
  private awaySince: number | undefined;
  /**
   * Nothing waits since the last `here` (no fold, no away time, no digest due): a page opening
   * has nothing to clear and costs no storage call (a deploy's reconnects open every page again).
   */
  private settled = false;
  /** The origin last remembered (in storage too). */
  private origin: string | undefined;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    /** The member's conversations with unread messages (the hub's list). */
    private readonly unread: () => UnreadConversation[],
  ) {}

  /** The origin the member's pages are served from (the digest's links, without APP_ORIGIN). */
  async rememberOrigin(origin: string): Promise<void> {
    if (this.origin === origin) return;
    if ((await this.ctx.storage.get<string>(ORIGIN_KEY)) !== origin) {
      await this.ctx.storage.put(ORIGIN_KEY, origin);
    }
    this.origin = origin;
  }

  private get sql() {
    return this.ctx.storage.sql;
  }

  /** The hub learns its member's id from the first call that names it. */
  async rememberMember(userId: string): Promise<void> {
    if ((await this.ctx.storage.get<string>(MEMBER_KEY)) !== userId) {
      await this.ctx.storage.put(MEMBER_KEY, userId);
    }
  }

  /** Keeps the name a notification showed for a member (a message names its sender with it). */
  rememberName(id: string, name: string): void {
    this.sql.exec(
      `INSERT INTO contact_name (id, name) VALUES (?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name WHERE name <> excluded.name`,
      id,
      name,
    );
  }

  /** A name kept here, else read once from D1 (null: no such member any more). */
  async nameOf(id: string): Promise<string | null> {
    const kept = this.sql
      .exec<{ name: string }>("SELECT name FROM contact_name WHERE id = ?", id)
      .toArray()[0];
    if (kept) return kept.name;
    const name = await loadActorName(this.env, id);
    if (name) this.rememberName(id, name);
    return name;
  }

  /**
   * A page of the member opened: they will see everything there; nothing waits to be pushed. A
   * ring a browser was shown and that still rings is kept, and so is its end waiting to be sent
   * (missed, or answered on a page): that replaces the ring on that browser's screen.
   */
  async here(now = Date.now()): Promise<void> {
    if (this.settled) return;
    // Set first: anything added while this clears makes it unsettled again.
    this.settled = true;
    this.sql.exec(
      `DELETE FROM away_push WHERE NOT (
         sent_at >= json_extract(fold, '$.rang_at')
         AND (json_extract(fold, '$.kind') = 'call' AND json_extract(fold, '$.rang_at') > ?1
           OR json_extract(fold, '$.kind') IN ('missed_call', 'call_answered')
             AND due_at IS NOT NULL))`,
      now - RING_TIMEOUT_MS,
    );
    this.awaySince = undefined;
    await this.ctx.storage.delete(AWAY_SINCE_KEY);
    const digest = await this.digest();
    if (digest.due !== null) await this.ctx.storage.put(DIGEST_KEY, { ...digest, due: null });
  }

  private async digest(): Promise<DigestState> {
    return (await this.ctx.storage.get<DigestState>(DIGEST_KEY)) ?? { due: null, last: null };
  }

  /** Something new the member has not seen: their digest is due, unless it is already. */
  private async scheduleDigest(now: number): Promise<void> {
    this.settled = false;
    const digest = await this.digest();
    if (digest.due !== null) return;
    const due = Math.max(
      now + awayEmailDelayMs(this.env),
      (digest.last ?? -Infinity) + digestIntervalMs(this.env),
    );
    await this.ctx.storage.put(DIGEST_KEY, { ...digest, due });
    await this.schedule(due);
  }

  /** The member's last page closed. */
  async left(now = Date.now()): Promise<void> {
    this.settled = false;
    this.awaySince = now;
    await this.ctx.storage.put(AWAY_SINCE_KEY, now);
  }

  /** When the member's last page closed (0: never seen here, away since ever). */
  private async since(): Promise<number> {
    this.awaySince ??= (await this.ctx.storage.get<number>(AWAY_SINCE_KEY)) ?? 0;
    return this.awaySince;
  }

  /** Something happened for the member while no page of theirs is open. */
  async add(event: AwayEvent, now = Date.now()): Promise<void> {
    this.settled = false;
    const row = this.row(event.tag);
    const held = row ? (JSON.parse(row.fold) as AwayFold) : null;
    const delay = awayPushDelayMs(this.env);
    let due: number;
    if (row?.due_at != null) due = row.due_at;
    else if (row?.sent_at != null && now - row.sent_at < delay) due = row.sent_at + delay;
    else due = Math.max(now, (await this.since()) + delay);
    this.sql.exec(
      `INSERT INTO away_push (tag, fold, sent_at, due_at) VALUES (?1, ?2, NULL, ?3)
       ON CONFLICT (tag) DO UPDATE SET fold = ?2, due_at = ?3`,
      event.tag,
      JSON.stringify(fold(held, event)),
      due,
    );
    await this.schedule(due);
    await this.scheduleDigest(now);
  }

  /**
   * A call rings for the member, or rang out (`event.kind` `call` or `missed_call`): pushed at
   * once, whatever the delay (a call rings for 45 s), under the conversation's call tag, so that
   * the missed call replaces the ring on the lock screen. A ring that arrives after its own call
   * was told missed changes nothing, nor does a missed call of an older call than the one ringing.
   */
  async addCall(event: AwayEvent, callId: string, now = Date.now()): Promise<void> {
    this.settled = false;
    const row = this.row(event.tag);
    const held = row ? (JSON.parse(row.fold) as AwayFold) : null;
    if (held?.call_id === callId && held.kind === "missed_call") return;
    if (event.kind === "missed_call" && held?.kind === "call" && held.call_id !== callId) return;
    // The ring's time stays with its call's end: whether a browser was shown the ring (`send`).
    const rangAt =
      event.kind === "call" ? now : held?.call_id === callId ? held.rang_at : undefined;
    const next: AwayFold = {
      ...fold(null, event),
      call_id: callId,
      ...(rangAt !== undefined ? { rang_at: rangAt } : {}),
    };
    this.sql.exec(
      `INSERT INTO away_push (tag, fold, sent_at, due_at) VALUES (?1, ?2, NULL, ?3)
       ON CONFLICT (tag) DO UPDATE SET fold = ?2, due_at = ?3, failures = 0`,
      event.tag,
      JSON.stringify(next),
      now,
    );
    await this.schedule(now);
    if (event.kind === "missed_call") await this.scheduleDigest(now);
  }

  /** Whether a browser was shown this call's ring (a page opened since keeps it: `here`). */
  ringPushed(conversationId: string, callId: string): boolean {
    const row = this.row(callTag(conversationId));
    if (!row) return false;
    const held = JSON.parse(row.fold) as AwayFold;
    return held.kind === "call" && held.call_id === callId && ringShown(row, held);
  }

  /**
   * The member answered or declined a call on one of their pages. A browser this hub rang by push
   * still shows the ring: the same tag now says what became of it, quietly (the service worker
   * shows nothing where a page of Heartline is in front). A ring not pushed yet is not pushed.
   */
  async answeredCall(
    conversationId: string,
    callId: string,
    answered: "accepted" | "declined",
    now = Date.now(),
  ): Promise<void> {
    const row = this.row(callTag(conversationId));
    const held = row ? (JSON.parse(row.fold) as AwayFold) : null;
    if (!row || !held || held.kind !== "call" || held.call_id !== callId) return;
    this.settled = false;
    const next: AwayFold = { ...held, kind: "call_answered", answered };
    this.sql.exec(
      "UPDATE away_push SET fold = ?1, due_at = ?2, failures = 0 WHERE tag = ?3",
      JSON.stringify(next),
      now,
      row.tag,
    );
    await this.schedule(now);
  }

  /** A conversation's calls are not pushed any more (it was hidden by a block, or is gone). */
  dropCalls(conversationId: string): void {
    this.sql.exec("DELETE FROM away_push WHERE tag = ?", callTag(conversationId));
  }

  /** A conversation was read, hidden or left: nothing of it is pushed any more. */
  dropConversation(conversationId: string): void {
    this.sql.exec("DELETE FROM away_push WHERE tag = ?", conversationTag(conversationId));
  }

  /**
   * A block between the member and `otherId` (either way): nothing of the other member is pushed,
   * and folds that named them forget them.
   */
  forgetMember(otherId: string): void {
    for (const row of this.sql.exec<FoldRow>("SELECT * FROM away_push").toArray()) {
      const held = JSON.parse(row.fold) as AwayFold;
      if (!held.actors.some((a) => a.id === otherId)) continue;
      const actors = held.actors.filter((a) => a.id !== otherId);
      if (actors.length === 0 || held.tag.startsWith("conversation:")) {
        this.sql.exec("DELETE FROM away_push WHERE tag = ?", row.tag);
        continue;
      }
      const count = Math.max(actors.length, held.count - 1);
      this.sql.exec(
        "UPDATE away_push SET fold = ? WHERE tag = ?",
        JSON.stringify({ ...held, actors, count }),
        row.tag,
      );
    }
    this.sql.exec("DELETE FROM contact_name WHERE id = ?", otherId);
  }

  /** The member's browsers or settings changed: the next push reads them from D1 again. */
  async invalidate(): Promise<void> {
    this.generation += 1;
    this.context = null;
    await this.ctx.storage.delete(CONTEXT_KEY);
  }

  /** The member's account is gone: nothing of theirs is kept here. */
  async forget(): Promise<void> {
    this.sql.exec("DELETE FROM away_push");
    this.sql.exec("DELETE FROM contact_name");
    await this.invalidate();
    await this.ctx.storage.delete([MEMBER_KEY, AWAY_SINCE_KEY, ORIGIN_KEY, DIGEST_KEY]);
    this.awaySince = undefined;
    this.origin = undefined;
  }

  /**
   * The hub's alarm: sends what is due (unless a page of the member is open again), then sets
   * the alarm for what is due next.
   */
  async alarm(openSockets: number, now = Date.now()): Promise<void> {
    // A page is open: nothing is pushed but the end of a ring some browser still shows.
    if (openSockets > 0) await this.here(now);
    const due = this.sql
      .exec<FoldRow>("SELECT * FROM away_push WHERE due_at <= ? ORDER BY due_at", now)
      .toArray();
    if (due.length > 0) {
      const context = await this.pushContext();
      for (const row of due) await this.send(row, context, now);
    }
    let digest = await this.digest();
    if (openSockets === 0 && digest.due !== null && digest.due <= now) {
      digest = await this.sendDigest(digest, now);
    }
    const next = this.sql
      .exec<{ at: number | null }>("SELECT min(due_at) AS at FROM away_push")
      .one().at;
    const at = [next, digest.due].filter((t): t is number => t !== null);
    if (at.length > 0) await this.ctx.storage.setAlarm(Math.min(...at));
  }

  /**
   * Writes the digest of what the member has not seen since they left (or since the last digest)
   * and queues it; nothing when there is nothing to tell. Answers the digest's next state.
   */
  private async sendDigest(digest: DigestState, now: number): Promise<DigestState> {
    const done = { due: null, last: digest.last };
    const context = await this.pushContext();
    const userId = await this.ctx.storage.get<string>(MEMBER_KEY);
    const origin = this.env.APP_ORIGIN ?? (await this.ctx.storage.get<string>(ORIGIN_KEY));
    if (!context || !userId || !origin || !digestWanted(context.settings)) {
      await this.ctx.storage.put(DIGEST_KEY, done);
      return done;
    }
    const since = Math.max(digest.last ?? 0, await this.since());
    const email = await composeDigest(this.env, {
      userId,
      origin,
      settings: context.settings,
      conversations: this.unread(),
      since: new Date(since).toISOString(),
    });
    const next = email ? { due: null, last: now } : done;
    if (email) await queueEmail(this.env, email);
    await this.ctx.storage.put(DIGEST_KEY, next);
    return next;
  }

  private async send(row: FoldRow, context: PushContext | null, now: number): Promise<void> {
    const held = JSON.parse(row.fold) as AwayFold;
    const reason = context ? pushWithheld(row, held, context, now) : "no_context";
    let sent = false;
    let retry = false;
    if (!reason && context && context.subscriptions.length > 0) {
      const outcome = await sendPushTo(
        this.env,
        context.subscriptions,
        awayPayload(held, context.settings.preview),
        { ...awayPushOptions(held.kind), userId: await this.ctx.storage.get<string>(MEMBER_KEY) },
      );
      sent = outcome.sent > 0;
      // Nothing reached any browser and a push service failed: tried again (a push to several
      // browsers of which one took it is not: the others would get it twice).
      retry = !sent && outcome.failed > 0 && row.failures < PUSH_RETRY_MS.length;
      if (outcome.removed > 0) await this.invalidate();
      count(this.env, "push_sent", outcome.sent);
      if (outcome.failed > 0) count(this.env, "push_failed", outcome.failed);
      if (outcome.removed > 0) count(this.env, "push_removed", outcome.removed);
    } else if (reason) {
      count(this.env, "push_withheld");
    }
    // Withheld (switched off, quiet hours, no browser) counts as done: the fold stays, so that a
    // later push of this tag still tells all, but nothing is retried now. What arrived while the
    // push was on its way (the fold changed) is due when the delay after this push ends (at once
    // for a call: a missed call replaces its ring without waiting).
    if (retry) {
      this.sql.exec(
        "UPDATE away_push SET due_at = ?, failures = failures + 1 WHERE tag = ?",
        now + PUSH_RETRY_MS[row.failures]!,
        row.tag,
      );
      return;
    }
    this.sql.exec(
      `UPDATE away_push SET sent_at = CASE WHEN ?1 THEN ?2 ELSE sent_at END,
         due_at = CASE WHEN fold = ?3 THEN NULL ELSE ?2 + ?4 END, failures = 0
       WHERE tag = ?5`,
      sent ? 1 : 0,
      now,
      row.fold,
      isCallKind(held.kind) ? 0 : awayPushDelayMs(this.env),
      row.tag,
    );
  }

  /** The member's browsers and settings: held here, else read from D1 and kept. */
  private async pushContext(now = Date.now()): Promise<PushContext | null> {
    const fresh = (held: HeldContext | null | undefined) =>
      held && typeof held.loaded_at === "number" && now - held.loaded_at < CONTEXT_MAX_AGE_MS;
    if (fresh(this.context)) return this.context;
    const stored = await this.ctx.storage.get<HeldContext>(CONTEXT_KEY);
    if (fresh(stored)) return (this.context = stored!);
    const userId = await this.ctx.storage.get<string>(MEMBER_KEY);
    if (!userId) return null;
    const generation = this.generation;
    try {
      const context = { ...(await loadPushContext(this.env, userId)), loaded_at: now };
      if (generation === this.generation) {
        this.context = context;
        await this.ctx.storage.put(CONTEXT_KEY, context);
      }
      return context;
    } catch (error) {
      logFailure("away_push_context_failed", error, { user_id: userId });
      return null;
    }
  }

  private row(tag: string): FoldRow | null {
    return (
      this.sql.exec<FoldRow>("SELECT * FROM away_push WHERE tag = ?", tag).toArray()[0] ?? null
    );
  }

  private async schedule(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}

/**
 * Why a fold is not pushed now, or null. An answer replaces only a ring some browser was shown
 * (one withheld or never sent is left alone), and then whatever the settings and the hour: it
 * silences a ring already on a screen.
 */
function pushWithheld(row: FoldRow, held: AwayFold, context: PushContext, now: number) {
  if (held.kind === "call_answered") {
    return ringShown(row, held) ? null : "not_rung";
  }
  return withheld(context.settings, held.kind, new Date(now));
}

/** Whether a browser was shown the ring this fold tells of (or replaced): pushed since it rang. */
function ringShown(row: FoldRow, held: AwayFold): boolean {
  return row.sent_at !== null && row.sent_at >= (held.rang_at ?? Infinity);
}
