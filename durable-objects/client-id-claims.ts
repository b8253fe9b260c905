import { conversationRoom } from "~/server/chat-rooms.server";
import type { Env } from "~/server/env.server";
import type { ClientIdClaim } from "~/server/room-api.server";

/** How long a client id stays claimed (a retry comes within seconds; a day is plenty). */
const CLIENT_ID_KEPT_MS = 24 * 60 * 60 * 1000;
/** How often claiming a client id also clears those older than that. */
const CLIENT_IDS_CLEARED_EVERY_MS = 60 * 1000;
/**
 * No lease is granted for this long after one was taken back: a member writing in two
 * conversations at once claims each client id here, rather than moving the lease to and fro.
 */
const LEASE_QUIET_MS = 10_000;
/** No lease is granted to a member with more client ids than this claimed elsewhere. */
const LEASE_MAX_ELSEWHERE = 1_000;
/**
 * A surrendered lease reports the ids stored since it was granted, from this much before (the
 * room's clock may be behind the hub's): an id reported twice is claimed once.
 */
const LEASE_CLOCK_MARGIN_MS = 60_000;

export const CLIENT_ID_SCHEMA = [
  // The client ids the member sent messages with, and their conversation.
  `CREATE TABLE IF NOT EXISTS client_ids (client_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL,
     claimed_at INTEGER NOT NULL)`,
  "CREATE INDEX IF NOT EXISTS client_ids_age ON client_ids (claimed_at)",
  // The one conversation that may use new client ids without asking (at most one row), and the
  // number of the last lease granted.
  `CREATE TABLE IF NOT EXISTS client_id_lease (conversation_id TEXT NOT NULL, epoch INTEGER NOT NULL,
     granted_at INTEGER NOT NULL)`,
  "CREATE TABLE IF NOT EXISTS client_id_epoch (epoch INTEGER NOT NULL)",
];

interface Lease {
  conversationId: string;
  epoch: number;
  grantedAt: number;
}

/**
 * A member's client ids (in their hub): each is used for one conversation only, so that the same
 * client id in another conversation is refused (409). A conversation's room claims each new id
 * here before it stores the message, which would cost a call between two objects for every
 * message. So the conversation the member is writing in gets a lease: the ids the member claimed
 * in other conversations, and the right to use any other id without asking. Its room reports the
 * ids it used when the lease is taken back, which happens before any other conversation's claim
 * is answered: every claim is still checked against every id the member used, and a member who
 * writes in one conversation at a time claims nothing per message
 * (docs/decisions/012-chat-in-rooms.md, "Client ids").
 */
export class ClientIdClaims {
  private clearedAt = 0;
  private recalledAt = 0;
  private recalling: Promise<void> | null = null;
  private cachedLease: Lease | null | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly env: Env,
  ) {}

  /**
   * Claims `clientId` of `memberId` for `conversationId`; answers the conversation that owns it,
   * and a lease if one is granted (or still held by that conversation).
   */
  async claim(clientId: string, conversationId: string, memberId: string): Promise<ClientIdClaim> {
    for (;;) {
      const lease = this.lease();
      if (!lease || lease.conversationId === conversationId) break;
      await this.takeBack(lease, memberId);
    }
    const now = Date.now();
    const owner = this.claimNow(clientId, conversationId, now);
    return { owner, lease: owner === conversationId ? this.grant(conversationId, now) : null };
  }

  /** Forgets every claim and the lease (the member's chat is erased). */
  forget() {
    this.sql.exec("DELETE FROM client_ids");
    this.sql.exec("DELETE FROM client_id_lease");
    this.cachedLease = null;
  }

  private claimNow(clientId: string, conversationId: string, now: number): string {
    const claimed = this.sql
      .exec<{ conversation_id: string }>(
        `INSERT INTO client_ids (client_id, conversation_id, claimed_at) VALUES (?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING conversation_id`,
        clientId,
        conversationId,
        now,
      )
      .toArray()[0];
    if (now - this.clearedAt >= CLIENT_IDS_CLEARED_EVERY_MS) {
      this.clearedAt = now;
      this.sql.exec("DELETE FROM client_ids WHERE claimed_at < ?", now - CLIENT_ID_KEPT_MS);
    }
    if (claimed) return claimed.conversation_id;
    return this.sql
      .exec<{
        conversation_id: string;
      }>("SELECT conversation_id FROM client_ids WHERE client_id = ?", clientId)
      .one().conversation_id;
  }

  /**
   * The lease for `conversationId`: the one it holds, or a new one unless a lease was taken back
   * lately, one is being taken back, or the member claimed too many ids elsewhere.
   */
  private grant(conversationId: string, now: number): ClientIdClaim["lease"] {
    const held = this.lease();
    if (!held && (this.recalling || now - this.recalledAt < LEASE_QUIET_MS)) return null;
    const elsewhere = this.sql
      .exec<{ client_id: string }>(
        "SELECT client_id FROM client_ids WHERE conversation_id != ? LIMIT ?",
        conversationId,
        LEASE_MAX_ELSEWHERE + 1,
      )
      .toArray()
      .map((r) => r.client_id);
    if (elsewhere.length > LEASE_MAX_ELSEWHERE) return null;
    let lease = held;
    if (!lease) {
      const epoch =
        (this.sql.exec<{ epoch: number }>("SELECT epoch FROM client_id_epoch").toArray()[0]
          ?.epoch ?? 0) + 1;
      this.sql.exec("DELETE FROM client_id_epoch");
      this.sql.exec("INSERT INTO client_id_epoch (epoch) VALUES (?)", epoch);
      lease = { conversationId, epoch, grantedAt: now };
      this.sql.exec(
        "INSERT INTO client_id_lease (conversation_id, epoch, granted_at) VALUES (?, ?, ?)",
        conversationId,
        epoch,
        now,
      );
      this.cachedLease = lease;
    }
    return { epoch: lease.epoch, elsewhere };
  }

  /**
   * Takes the lease back from its room: the ids it used under it are claimed for its
   * conversation, then the lease is gone. Concurrent claims wait for the same call; if the room
   * cannot be reached, the claim fails (and the lease stays where it is).
   */
  private async takeBack(lease: Lease, memberId: string): Promise<void> {
    this.recalling ??= (async () => {
      const since = new Date(lease.grantedAt - LEASE_CLOCK_MARGIN_MS).toISOString();
      const used = await conversationRoom(this.env, lease.conversationId).surrenderClientIds(
        memberId,
        lease.epoch,
        since,
      );
      const now = Date.now();
      for (const clientId of used) {
        this.sql.exec(
          `INSERT INTO client_ids (client_id, conversation_id, claimed_at) VALUES (?, ?, ?)
           ON CONFLICT DO NOTHING`,
          clientId,
          lease.conversationId,
          now,
        );
      }
      this.sql.exec("DELETE FROM client_id_lease WHERE epoch = ?", lease.epoch);
      this.cachedLease = null;
      this.recalledAt = now;
    })().finally(() => {
      this.recalling = null;
    });
    await this.recalling;
  }

  private lease(): Lease | null {
    if (this.cachedLease === undefined) {
      const row = this.sql
        .exec<{
          conversation_id: string;
          epoch: number;
          granted_at: number;
        }>("SELECT conversation_id, epoch, granted_at FROM client_id_lease LIMIT 1")
        .toArray()[0];
      this.cachedLease = row
        ? { conversationId: row.conversation_id, epoch: row.epoch, grantedAt: row.granted_at }
        : null;
    }
    return this.cachedLease;
  }
}
