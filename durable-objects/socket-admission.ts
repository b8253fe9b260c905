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
const SESSION_ENDS_KEY = "session-ends";

/**
 * The member's sessions whose tickets opened a socket here, and when each ends by itself (its
 * absolute expiry): the hub's alarm ends their sockets then, as a sign-out of that session would.
 */
interface SessionEnds {
  member: string | null;
  ends: Record<string, number>;
}

/** The sessions that ended by themselves by now, and their member. */
export interface SessionsDue {
  member: string;
  sids: string[];
}

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
 * - when the sessions whose tickets it admitted end by themselves (a ticket carries its session's
 *   absolute expiry): the hub's alarm is kept at the earliest, and ends that session then.
 *
 * All live in durable storage as well as in memory: a deploy restarts the hub, and the reconnect
 * wave that follows must find them without D1.
 */
export class SocketAdmission {
  private revocations: TicketRevocations | null = null;
  private start: PresenceStart | null = null;
  private sessionEnds: SessionEnds | null = null;
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

  private async loadSessionEnds(): Promise<SessionEnds> {
    this.sessionEnds ??= (await this.storage.get<SessionEnds>(SESSION_ENDS_KEY)) ?? {
      member: null,
      ends: {},
    };
    return this.sessionEnds;
  }

  private async saveSessionEnds(next: SessionEnds): Promise<void> {
    this.sessionEnds = next;
    await this.storage.put(SESSION_ENDS_KEY, next);
  }

  /**
   * Whether a socket with this ticket may open (always, for one whose session was read). An
   * admitted ticket's session end is kept, with the alarm at the earliest one.
   */
  async admits(ticket: TicketSession): Promise<boolean> {
    if (!ticket) return true;
    if (!ticketAdmitted(await this.loadRevocations(), ticket)) return false;
    if (ticket.ends !== null) await this.watchEnd(ticket.sub, ticket.sid, ticket.ends);
    return true;
  }

  /** Keeps when a session ends by itself (stored once per session, not per socket). */
  private async watchEnd(member: string, sid: string, at: number): Promise<void> {
    const held = await this.loadSessionEnds();
    if (held.ends[sid] === at && held.member === member) return;
    await this.saveSessionEnds({ member, ends: { ...held.ends, [sid]: at } });
    await this.scheduleSessionEnds();
  }

  /** Sets the alarm to the earliest session end kept, unless it rings earlier already. */
  async scheduleSessionEnds(): Promise<void> {
    const ends = Object.values((await this.loadSessionEnds()).ends);
    if (ends.length === 0) return;
    const next = Math.min(...ends);
    const current = await this.storage.getAlarm();
    if (current === null || current > next) await this.storage.setAlarm(next);
  }

  /** The sessions kept that have ended by themselves at `now` (null: none). */
  async sessionsDue(now = Date.now()): Promise<SessionsDue | null> {
    const held = await this.loadSessionEnds();
    const sids = Object.keys(held.ends).filter((sid) => held.ends[sid]! <= now);
    return held.member && sids.length > 0 ? { member: held.member, sids } : null;
  }

  /**
   * Some of the member's sessions ended: their tickets open nothing from now on, and their ends
   * are no longer watched.
   */
  async revoke(sessions: EndedSessions, now = Date.now()): Promise<void> {
    this.revocations = revoke(await this.loadRevocations(), sessions, now);
    await this.storage.put(REVOCATIONS_KEY, this.revocations);
    const held = await this.loadSessionEnds();
    const ends = Object.fromEntries(
      Object.entries(held.ends).filter(([sid]) =>
        typeof sessions === "object" && "only" in sessions
          ? sid !== sessions.only
          : sessions !== "all" && sid === sessions.allBut,
      ),
    );
    if (Object.keys(ends).length !== Object.keys(held.ends).length) {
      await this.saveSessionEnds({ member: held.member, ends });
    }
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
