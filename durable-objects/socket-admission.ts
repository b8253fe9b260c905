import type { Env } from "~/server/env.server";
import { presenceConnectInfo } from "~/server/presence.server";
import type { PresenceStart } from "~/server/room-api.server";
import {
  NO_REVOCATIONS,
  revoke,
  ticketAdmitted,
  type EndedSessions,
  type TicketRevocations,
  type TicketSession,
} from "~/server/socket-ticket.server";

/** Storage keys (the hub's key-value storage, beside its SQL tables). */
const REVOCATIONS_KEY = "ticket-revocations";
const PRESENCE_START_KEY = "presence-start";

/**
 * The member hub's part in opening the member's sockets without D1 (docs/decisions/044):
 *
 * - which tickets still open sockets: the hub hears every end of the member's sessions
 *   (`endMemberSockets`), and keeps what ended for as long as a ticket lives;
 * - what a presence socket starts with (blocks, contacts, the hidden setting): read from D1 once
 *   and kept in the hub's storage, so a restart of every object (a deploy) reads nothing again.
 *   The copy is dropped when one of them changes: a block either way, the setting, a new match or
 *   conversation, an unmatch; the next presence socket reads it afresh.
 *
 * Both live in durable storage as well as in memory: a deploy restarts the hub, and the reconnect
 * wave that follows must find them without D1.
 */
export class SocketAdmission {
  private revocations: TicketRevocations | null = null;
  private start: PresenceStart | null = null;
  /** Bumped by every change: a D1 read that started before it is not kept. */
  private generation = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: Env,
  ) {}

  private async loadRevocations(): Promise<TicketRevocations> {
    this.revocations ??=
      (await this.storage.get<TicketRevocations>(REVOCATIONS_KEY)) ?? NO_REVOCATIONS;
    return this.revocations;
  }

  /** Whether a socket with this ticket may open (always, for one whose session was read). */
  async admits(ticket: TicketSession): Promise<boolean> {
    if (!ticket) return true;
    return ticketAdmitted(await this.loadRevocations(), ticket);
  }

  /** Some of the member's sessions ended: their tickets open nothing from now on. */
  async revoke(sessions: EndedSessions, now = Date.now()): Promise<void> {
    this.revocations = revoke(await this.loadRevocations(), sessions, now);
    await this.storage.put(REVOCATIONS_KEY, this.revocations);
  }

  /** What the member's presence socket starts with (null: the ticket is refused). */
  async presenceStart(userId: string, ticket: TicketSession): Promise<PresenceStart | null> {
    if (!(await this.admits(ticket))) return null;
    if (this.start) return this.start;
    const stored = await this.storage.get<PresenceStart>(PRESENCE_START_KEY);
    if (stored) return (this.start = stored);
    const generation = this.generation;
    const fresh = await presenceConnectInfo(this.env, userId);
    if (generation === this.generation) {
      this.start = fresh;
      await this.storage.put(PRESENCE_START_KEY, fresh);
    }
    return fresh;
  }

  /** Blocks, contacts or the hidden setting changed: read them again for the next socket. */
  async presenceChanged(): Promise<void> {
    this.generation += 1;
    this.start = null;
    await this.storage.delete(PRESENCE_START_KEY);
  }
}
