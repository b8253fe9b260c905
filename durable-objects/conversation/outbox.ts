import { otherMember, type RoomRules } from "~/server/chat-rules.server";
import { memberHub } from "~/server/member-hub.server";
import type { ListUpdate } from "~/server/room-api.server";
import type { Env } from "~/server/env.server";
import { logFailure } from "~/server/log.server";
import type { RoomRulesCache } from "./rules";
import type { MessageRow } from "~/server/chat-migration.server";
import type { ConversationFacts, ConversationStorage, OutboxRow } from "./storage";

/** How soon a list update that failed to reach a member's hub is tried again. */
const OUTBOX_RETRY_MS = 2_000;
/**
 * After a socket's send, the lists are flushed at once when no flush started within this long,
 * else when this long has passed since the last one: a quiet conversation's lists follow each
 * message at once, and a busy one's reach each hub once a second with the newest entry
 * (absolute values, so nothing is lost).
 */
export const LIST_FLUSH_INTERVAL_MS = 1_000;

type MemberHubStub = ReturnType<typeof memberHub>;

/**
 * The members' list entries: after each change the room queues both members' entries in its
 * storage (the outbox: one row a member, the newest) and flushes them to their hubs; what fails
 * is retried by alarm until it lands. Changes coalesce: a flush sends each member's entry as it
 * is then, so the changes queued between flushes (`flushSoon`, `flushWithin`) reach each hub
 * as one call.
 */
export class Outbox {
  private flushing: Promise<void> | null = null;
  private flushAgain: Promise<void> | null = null;
  private alarmSet = false;
  /**
   * The version of each member's entry their hub has (since this object started): a row at or
   * below it is not sent again, and leaves the outbox when the alarm runs, in one statement,
   * rather than with a write after every delivery. After a restart this is empty: the alarm
   * sends what is left again, which the hub ignores as not newer than what it holds.
   */
  private landed = new Map<string, number>();
  /** The members' hubs, each looked up once (a handle whose call failed is dropped). */
  private hubs = new Map<string, MemberHubStub>();
  private window: ReturnType<typeof setTimeout> | null = null;
  /** When the last flush started (the clock of this object). */
  private lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly storage: ConversationStorage,
    private readonly rules: RoomRulesCache,
  ) {}

  /** Queues both members' list entries (the sender's too); `seq` is the new message, if any. */
  queueBoth(seq: number | null) {
    const facts = this.storage.facts();
    if (!facts) return;
    this.retryLater();
    this.storage.queuePair(facts.low, facts.high, this.storage.bumpVersion(), seq);
  }

  /** Queues one member's list entry (the alarm retries it if no flush lands it first). */
  queue(userId: string, seq: number | null) {
    this.retryLater();
    this.storage.queue(userId, this.storage.bumpVersion(), seq);
  }

  /** Sets the alarm that flushes what is queued should no flush land it first (a crash). */
  private retryLater() {
    if (this.alarmSet) return;
    this.alarmSet = true;
    void this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
  }

  /**
   * Flushes the outbox to the hubs; resolves once a flush that started after this call ended
   * (whether or not every hub was reached: what failed waits for the alarm).
   */
  flushSoon(): Promise<void> {
    if (this.flushing) {
      this.flushAgain ??= this.flushing.then(() => {
        this.flushAgain = null;
        return this.flushSoon();
      });
      return this.flushAgain;
    }
    this.lastFlushAt = Date.now();
    this.flushing = this.flush()
      .catch((error: unknown) => {
        logFailure("chat_outbox_failed", error);
      })
      .finally(() => {
        this.flushing = null;
      });
    this.ctx.waitUntil(this.flushing);
    return this.flushing;
  }

  /**
   * Flushes now if no flush started within LIST_FLUSH_INTERVAL_MS, else once that much has
   * passed since the last one, together with whatever else is queued by then (what is queued is
   * durable already: should the room stop first, its alarm sends it).
   */
  flushWithin() {
    if (this.window) return;
    const wait = this.lastFlushAt + LIST_FLUSH_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      void this.flushSoon();
      return;
    }
    this.window = setTimeout(() => {
      this.window = null;
      void this.flushSoon();
    }, wait);
  }

  /** The conversation was erased: its counter starts again, and nothing is queued. */
  forget() {
    this.landed.clear();
    if (this.window) clearTimeout(this.window);
    this.window = null;
  }

  /** The alarm: the retry of what did not land. */
  async alarm(): Promise<void> {
    this.alarmSet = false;
    await this.flushSoon();
    for (const [userId, version] of this.landed) this.storage.delivered(userId, version);
  }

  /** Sends each queued list entry, as it is now, to its member's hub. */
  private async flush(): Promise<void> {
    const queued = this.storage
      .queued()
      .filter((q) => q.version > (this.landed.get(q.user_id) ?? 0));
    if (queued.length === 0) return;
    const facts = this.storage.facts();
    if (!facts) return;
    const rules = this.rules.current ?? (await this.rules.load(facts.id));
    // Both entries are read in this one turn: the newest message and the new one once.
    const newest = this.storage.newest();
    const rows = new Map<number, MessageRow | null>();
    const rowOf = (seq: number) => {
      if (!rows.has(seq)) rows.set(seq, this.storage.row(seq));
      return rows.get(seq)!;
    };
    const updates = queued.map((q) =>
      this.listEntry(facts, rules, newest, q, q.message_seq === null ? null : rowOf(q.message_seq)),
    );
    const landed = await Promise.all(
      updates.map(async (update, i) => {
        const { user_id: userId, version } = queued[i]!;
        try {
          await this.hub(userId).applyConversation(update);
          this.landed.set(userId, Math.max(version, this.landed.get(userId) ?? 0));
          return true;
        } catch (error) {
          this.hubs.delete(userId);
          logFailure("chat_list_update_failed", error);
          return false;
        }
      }),
    );
    if (landed.includes(false)) {
      this.alarmSet = true;
      await this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    }
  }

  private hub(userId: string): MemberHubStub {
    let hub = this.hubs.get(userId);
    if (!hub) {
      hub = memberHub(this.env, userId);
      this.hubs.set(userId, hub);
    }
    return hub;
  }

  /** Member `userId`'s entry for this conversation as it is now. */
  private listEntry(
    facts: ConversationFacts,
    rules: RoomRules | null,
    last: ReturnType<ConversationStorage["newest"]>,
    { user_id: userId, version }: OutboxRow,
    message: MessageRow | null,
  ): ListUpdate {
    const other = otherMember(facts, userId);
    return {
      conversation_id: facts.id,
      other_id: other,
      version,
      last_message: last?.message ?? null,
      last_message_time: last?.sent_at ?? null,
      activity_at: last?.sent_at ?? facts.createdAt,
      unread_count: this.storage.unreadFor(userId, other),
      hidden: !rules || rules.blocked || rules.inactive.includes(other),
      message:
        message && !message.deleted_at
          ? {
              id: message.id,
              sender_id: message.sender_id,
              message: message.message,
              sent_at: message.sent_at,
            }
          : null,
    };
  }
}
