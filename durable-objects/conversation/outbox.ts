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
/**
 * A busy room's next flush comes up to this much later still, at random: rooms that got busy
 * together (a burst of traffic, a deploy) would otherwise flush together every second, each waking
 * two hubs at once, and stall the messages of every room on the machine while they do. The alarm
 * that stands in for a lost flush is spread the same way.
 */
const FLUSH_SPREAD_MS = 500;

type MemberHubStub = ReturnType<typeof memberHub>;

const spread = () => Math.floor(Math.random() * FLUSH_SPREAD_MS);

/**
 * Whether a change must write a member's outbox row, given how the row is marked since a flush
 * last read the outbox (undefined: not at all; true: with a new message; false: without one) and
 * the change's new message `seq`, if any: only when unmarked, or when a message comes to a row
 * marked without one (the flush sends the newest message of a row that marks one).
 */
export const needsRow = (marked: boolean | undefined, seq: number | null): boolean =>
  marked === undefined || (seq !== null && !marked);

/** How the row is marked once that change is written. */
export const markedAfter = (marked: boolean | undefined, seq: number | null): boolean =>
  seq !== null || marked === true;

/**
 * The members' list entries: after each change the room marks both members' entries in its
 * storage (the outbox: one row a member) and flushes them to their hubs; what fails is retried by
 * alarm until it lands. Changes coalesce: a flush sends each member's entry as it is then, so the
 * changes between flushes (`flushSoon`, `flushWithin`) reach each hub as one call, and a row
 * already marked since the last flush is not written again (a busy conversation writes its outbox
 * once a flush, not once a message).
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
  /**
   * The members whose row was written since a flush last read the outbox, and whether it marks a
   * new message: a change that row already covers writes nothing (the flush reads the entry as it
   * is then). Empty after a restart: the first change writes its row again.
   */
  private marked = new Map<string, boolean>();

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
    const members = [facts.low, facts.high].filter((userId) => this.needsRow(userId, seq));
    if (members.length < 2) {
      for (const userId of members) this.queue(userId, seq);
      return;
    }
    this.retryLater();
    this.storage.queuePair(facts.low, facts.high, this.storage.bumpVersion(), seq);
    for (const userId of members) this.mark(userId, seq);
  }

  /** Queues one member's list entry (the alarm retries it if no flush lands it first). */
  queue(userId: string, seq: number | null) {
    if (!this.needsRow(userId, seq)) return;
    this.retryLater();
    this.storage.queue(userId, this.storage.bumpVersion(), seq);
    this.mark(userId, seq);
  }

  private needsRow(userId: string, seq: number | null): boolean {
    return needsRow(this.marked.get(userId), seq);
  }

  private mark(userId: string, seq: number | null) {
    this.marked.set(userId, markedAfter(this.marked.get(userId), seq));
  }

  /** Sets the alarm that flushes what is queued should no flush land it first (a crash). */
  private retryLater() {
    if (this.alarmSet) return;
    this.alarmSet = true;
    void this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS + spread());
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
   * Flushes now if no flush started within LIST_FLUSH_INTERVAL_MS, else once that much (and up
   * to FLUSH_SPREAD_MS more) has passed since the last one, together with whatever else is
   * queued by then (what is queued is durable already: should the room stop first, its alarm
   * sends it).
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
    }, wait + spread());
  }

  /** The conversation was erased: its counter starts again, and nothing is queued. */
  forget() {
    this.landed.clear();
    this.marked.clear();
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
    const facts = this.storage.facts();
    if (!facts) return;
    const rules = this.rules.current ?? (await this.rules.load(facts.id));
    // The rows and both entries are read in this one turn: a change after it writes its row again.
    const queued = this.storage
      .queued()
      .filter((q) => q.version > (this.landed.get(q.user_id) ?? 0));
    this.marked.clear();
    if (queued.length === 0) return;
    // A row that marks a message sends the newest one (seqs only grow: it is the row's or later).
    const newest = this.storage.newest();
    const lastSeq = this.storage.lastSeq();
    let message: MessageRow | null | undefined;
    const newMessage = () => (message ??= this.storage.row(lastSeq));
    const updates = queued.map((q) =>
      this.listEntry(facts, rules, newest, q, q.message_seq === null ? null : newMessage()),
    );
    const landed = await Promise.all(
      updates.map(async (update, i) => {
        const { user_id: userId, version } = queued[i]!;
        try {
          await this.hub(userId).applyConversation(update, userId);
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
      await this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS + spread());
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

  /**
   * What `userId`'s list shows of the conversation: the newest message, or a reaction that came
   * after it ("You reacted ❤️ to “…”", or "Reacted ❤️ to “…”" for the other member's, whose name
   * the list shows beside it).
   */
  private preview(last: ReturnType<ConversationStorage["newest"]>, userId: string): string | null {
    const reaction = this.storage.lastReaction();
    if (!last || !reaction || reaction.at <= last.sent_at) return last?.message ?? null;
    const row = this.storage.row(reaction.seq);
    if (!row || row.deleted_at) return last.message;
    const text = row.message.length > 40 ? `${row.message.slice(0, 40)}…` : row.message;
    return `${reaction.user_id === userId ? "You reacted" : "Reacted"} ${reaction.emoji} to “${text}”`;
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
      last_message: this.preview(last, userId),
      last_message_time: last?.sent_at ?? null,
      activity_at: last?.sent_at ?? facts.createdAt,
      unread_count: this.storage.unreadFor(userId, other),
      hidden: !rules || rules.blocked || rules.ended || rules.inactive.includes(other),
      message:
        message && !message.deleted_at
          ? {
              id: message.id,
              sender_id: message.sender_id,
              message: message.message,
              sent_at: message.sent_at,
              gift: message.gift_name,
              ...(message.call ? { call: true } : {}),
            }
          : null,
    };
  }
}
