import { otherMember, type RoomRules } from "~/server/chat-rules.server";
import { applyToMemberList } from "~/server/chat-lists.server";
import type { ListUpdate } from "~/server/room-api.server";
import type { Env } from "~/server/env.server";
import { logFailure } from "~/server/log.server";
import type { RoomRulesCache } from "./rules";
import type { ConversationFacts, ConversationStorage } from "./storage";

/** How soon a list update that failed to reach a member's hub is tried again. */
const OUTBOX_RETRY_MS = 2_000;

/**
 * The members' list entries: after each change the room queues both members' entries in its
 * storage (the outbox) and flushes them to their hubs; what fails is retried by alarm until it
 * lands.
 */
export class Outbox {
  private flushing: Promise<void> | null = null;
  private flushAgain: Promise<void> | null = null;
  private alarmSet = false;

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
    this.queue(facts.low, seq);
    this.queue(facts.high, seq);
  }

  /** Queues one member's list entry (the alarm retries it if no flush lands it first). */
  queue(userId: string, seq: number | null) {
    if (!this.alarmSet) {
      this.alarmSet = true;
      void this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    }
    this.storage.queue(userId, this.storage.bumpVersion(), seq);
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

  /** The alarm: the retry of what did not land. */
  async alarm(): Promise<void> {
    this.alarmSet = false;
    await this.flushSoon();
  }

  /** Sends each queued list entry, as it is now, to its member's hub. */
  private async flush(): Promise<void> {
    const queued = this.storage.queued();
    if (queued.length === 0) return;
    const facts = this.storage.facts();
    if (!facts) return;
    const rules = this.rules.current ?? (await this.rules.load(facts.id));
    let failed = false;
    await Promise.all(
      queued.map(async (q) => {
        const update = this.listEntry(facts, rules, q.user_id, q.version, q.message_seq);
        try {
          await applyToMemberList(this.env, q.user_id, update);
          this.storage.delivered(q.user_id, q.version);
        } catch (error) {
          failed = true;
          logFailure("chat_list_update_failed", error);
        }
      }),
    );
    if (failed) {
      this.alarmSet = true;
      await this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    }
  }

  /** Member `userId`'s entry for this conversation as it is now. */
  private listEntry(
    facts: ConversationFacts,
    rules: RoomRules | null,
    userId: string,
    version: number,
    messageSeq: number | null,
  ): ListUpdate {
    const other = otherMember(facts, userId);
    const last = this.storage.newest();
    const message = messageSeq === null ? null : this.storage.row(messageSeq);
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
