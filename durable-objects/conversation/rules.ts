import { sql } from "drizzle-orm";
import type { RoomRules } from "~/server/chat-rules.server";
import type { Env } from "~/server/env.server";
import { first } from "~/server/sql.server";
import { blockedEitherWay } from "~/server/visibility.server";
import type { ConversationStorage } from "./storage";

/**
 * The conversation's rules as the room knows them: its members (fixed when it is created), and
 * blocks, suspensions and an unmatch, read from D1 once when the room starts and pushed here when they change.
 */
export class RoomRulesCache {
  private rules: RoomRules | null = null;
  private loading: Promise<RoomRules | null> | null = null;
  /** Bumped by every pushed rule change: a load from D1 that started before it is not used. */
  private generation = 0;

  constructor(
    private readonly env: Env,
    private readonly storage: ConversationStorage,
    /** What must happen before the room's first use (it takes over the messages D1 held). */
    private readonly beforeFirstLoad: (conversationId: string) => Promise<unknown>,
  ) {}

  /** The rules in memory, if they were loaded. */
  get current(): RoomRules | null {
    return this.rules;
  }

  /** The conversation's rules; null when it does not exist (any more). */
  async load(conversationId: string): Promise<RoomRules | null> {
    if (this.rules) return this.rules;
    if (!this.storage.imported()) await this.beforeFirstLoad(conversationId);
    for (;;) {
      const generation = this.generation;
      this.loading ??= readRules(this.env, conversationId);
      const loading = this.loading;
      const rules = await loading;
      if (this.loading === loading) this.loading = null;
      if (generation !== this.generation) continue;
      if (rules) {
        this.rules = rules;
        this.storage.rememberFacts(conversationId, rules);
      }
      return rules;
    }
  }

  /** One member blocked the other, or the last block between them went. */
  setBlocked(blocked: boolean) {
    this.generation += 1;
    if (this.rules) this.rules = { ...this.rules, blocked };
  }

  /** A member unmatched the other: the conversation ended for both. */
  setEnded() {
    this.generation += 1;
    if (this.rules) this.rules = { ...this.rules, ended: true };
  }

  /** A member was suspended (or is active again). */
  setMemberActive(userId: string, active: boolean) {
    this.generation += 1;
    if (this.rules) {
      const inactive = this.rules.inactive.filter((id) => id !== userId);
      this.rules = { ...this.rules, inactive: active ? inactive : [...inactive, userId] };
    }
  }

  /** The conversation is gone: forget what was loaded. */
  forget() {
    this.rules = null;
    this.generation += 1;
  }
}

/** The conversation's rules as D1 holds them now; null when it does not exist. */
export async function readRules(env: Env, conversationId: string): Promise<RoomRules | null> {
  const row = await first<{
    user_low: string;
    user_high: string;
    created_at: string;
    ended_at: string | null;
    blocked: number;
    low_status: string | null;
    high_status: string | null;
    low_joined: string | null;
    high_joined: string | null;
  }>(
    env.DB,
    sql`SELECT c.user_low, c.user_high, c.created_at, c.ended_at,
         ${blockedEitherWay(sql`c.user_low`, sql`c.user_high`)} AS blocked,
         (SELECT status FROM users WHERE id = c.user_low) AS low_status,
         (SELECT status FROM users WHERE id = c.user_high) AS high_status,
         (SELECT created_at FROM users WHERE id = c.user_low) AS low_joined,
         (SELECT created_at FROM users WHERE id = c.user_high) AS high_joined
       FROM conversations c WHERE c.id = ${conversationId}`,
  );
  if (!row) return null;
  return {
    low: row.user_low,
    high: row.user_high,
    createdAt: row.created_at,
    blocked: row.blocked === 1,
    ended: row.ended_at !== null,
    // A member whose row is gone is long past their first day.
    joinedAt: {
      [row.user_low]: row.low_joined ?? row.created_at,
      [row.user_high]: row.high_joined ?? row.created_at,
    },
    inactive: [
      ...(row.low_status === "active" ? [] : [row.user_low]),
      ...(row.high_status === "active" ? [] : [row.user_high]),
    ],
  };
}
