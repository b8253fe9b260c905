import { DurableObject } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { parseFrame } from "~/realtime/frames";
import {
  memberClientFrame,
  SESSION_ENDED_CLOSE,
  type CallRingFrame,
  type MemberServerFrame,
} from "~/realtime/member";
import { conversationRoom } from "~/server/chat-rooms.server";
import type { NotificationView } from "~/schemas/notifications";
import type { Env } from "~/server/env.server";
import type {
  ClientIdClaim,
  ListEntry,
  ListRow,
  ConversationAdmission,
  ListUpdate,
  MemberHubApi,
  PresenceStart,
  RateLimitSpec,
  Refusal,
  SendGrant,
  SendsReturned,
} from "~/server/room-api.server";
import { log, loggedAlarm } from "~/server/log.server";
import { closeConversationSockets, closePresenceSockets } from "~/server/member-channel.server";
import { exec } from "~/server/sql.server";
import { callEvent, messageEvent, notificationEvent } from "~/server/away.server";
import { notificationActor } from "~/lib/notifications";
import { displayName } from "~/lib/members";
import { AWAY_SCHEMA, AwayPushes } from "./away-pushes";
import { CLIENT_ID_SCHEMA, ClientIdClaims } from "./client-id-claims";
import { SendBudget } from "./send-budget";
import { SocketAdmission } from "./socket-admission";
import {
  closeNormally,
  isUpgrade,
  notAnUpgrade,
  refuseSocket,
  SocketLayer,
  type SocketAttachment,
} from "./socket-layer";
import { upgradeStorage, type StorageStep } from "./storage-version";
import type { EndedSessions, TicketSession } from "~/server/socket-ticket.server";
import { reportFailuresToTracker } from "~/server/error-tracker.server";

/**
 * What a hub socket carries; `ended`: the hub ended it (the session ended), and it receives
 * nothing more, whatever its client does with the close frame.
 */
interface HubAttachment extends SocketAttachment {
  /** The member whose socket it is (their acknowledgements are theirs). */
  userId?: string;
}

/** Storage keys of the conversations the member opened a socket in, and how many are kept. */
const CONVERSATION_PREFIX = "conversation:";
const CONVERSATIONS_KEPT = 100;

const SCHEMA = [
  // The member's conversation list (docs/decisions/012-chat-in-rooms.md), written by the rooms.
  `CREATE TABLE IF NOT EXISTS chat_list (
     conversation_id TEXT PRIMARY KEY, other_id TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
     last_message TEXT, last_message_time TEXT, activity_at TEXT NOT NULL,
     unread_count INTEGER NOT NULL DEFAULT 0, listed INTEGER NOT NULL DEFAULT 0, archived_at TEXT,
     hidden INTEGER NOT NULL DEFAULT 0)`,
  "CREATE INDEX IF NOT EXISTS chat_list_order ON chat_list (activity_at, conversation_id)",
  ...CLIENT_ID_SCHEMA,
  ...AWAY_SCHEMA,
];

/** The hub's storage versions (durable-objects/storage-version.ts); append, never edit. */
const STEPS: readonly StorageStep[] = [
  { why: "the chat list, client ids, away pushes and contact names", statements: SCHEMA },
];

/**
 * One hub per member, addressed by the member id: holds that member's sockets on every page (all
 * tabs) and delivers the frames the server publishes to them. Sockets hibernate between frames;
 * the keepalive ping is answered without waking the object.
 *
 * It also remembers the conversations the member most recently opened a socket in, so that when
 * their sessions end every socket of theirs can be closed: this hub's and those rooms'.
 *
 * And it holds the member's conversation list (`chat_list`): each conversation's room writes the
 * member's entry after every change (last message, unread count, hidden across a block), and a
 * `conversation` frame goes to the member's pages with their unread total; archiving is the
 * member's own. The client ids the member sent with are claimed here, so that one is never used
 * for two messages in different conversations (client-id-claims.ts: the conversation the member
 * writes in holds a lease, and claims nothing per message).
 *
 * And it decides the pushes of a member who is away (away-pushes.ts, docs/decisions/033): a
 * message, gift, like, match or profile view for a member with no page open is folded under its
 * tag, and the hub's alarm sends it; a call ringing for them is pushed at once.
 */
export class MemberHub extends DurableObject<Env> implements MemberHubApi {
  private readonly clientIds: ClientIdClaims;
  private readonly away: AwayPushes;
  /** The member's sockets, on every page (docs/decisions/051). */
  private readonly sockets: SocketLayer<HubAttachment>;
  private readonly admission: SocketAdmission;
  /** How many times the member's bell changed (app/realtime/bell.ts), kept across restarts. */
  private bell = 0;
  /** The member's messages over chat_send_account's window, in every conversation. */
  private readonly sends: SendBudget;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    reportFailuresToTracker(env);
    this.sockets = new SocketLayer(ctx);
    upgradeStorage(this.ctx.storage.sql, "member_hub", STEPS);
    this.clientIds = new ClientIdClaims(this.ctx.storage.sql, env);
    this.admission = new SocketAdmission(this.ctx.storage, env);
    this.sends = new SendBudget(env);
    void this.ctx.blockConcurrencyWhile(async () => {
      this.bell = (await this.ctx.storage.get<number>(BELL_KEY)) ?? 0;
    });
    this.away = new AwayPushes(this.ctx, env, () =>
      this.ctx.storage.sql
        .exec<{ conversation_id: string; other_id: string; unread_count: number }>(
          `SELECT conversation_id, other_id, unread_count FROM chat_list
           WHERE listed = 1 AND archived_at IS NULL AND hidden = 0 AND unread_count > 0
           ORDER BY activity_at DESC LIMIT 50`,
        )
        .toArray(),
    );
  }

  /**
   * A room's entry for one conversation (idempotent: an entry no newer than the one held changes
   * nothing). A new message lists the conversation and brings it back from the archive. The
   * member's open pages hear of it, unless the conversation is hidden.
   */
  async applyConversation(update: ListUpdate, userId?: string): Promise<void> {
    // Constant text (no query builder): this runs twice for every message sent. An entry held
    // already is updated in place (the common case); a new one is inserted.
    const listed = update.message ? 1 : 0;
    const values = [
      update.version,
      update.last_message,
      update.last_message_time,
      update.activity_at,
      update.unread_count,
      update.hidden ? 1 : 0,
    ];
    let applied = this.ctx.storage.sql.exec(
      `UPDATE chat_list SET version = ?1, last_message = ?2, last_message_time = ?3,
         activity_at = ?4, unread_count = ?5, hidden = ?6, listed = max(listed, ?7),
         archived_at = CASE WHEN ?7 = 1 THEN NULL ELSE archived_at END
       WHERE conversation_id = ?8 AND version < ?1`,
      ...values,
      listed,
      update.conversation_id,
    ).rowsWritten;
    if (applied === 0 && !this.conversationHeld(update.conversation_id)) {
      applied = this.ctx.storage.sql.exec(
        `INSERT INTO chat_list (version, last_message, last_message_time, activity_at,
           unread_count, hidden, listed, conversation_id, other_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ...values,
        listed,
        update.conversation_id,
        update.other_id,
      ).rowsWritten;
      // A new conversation partner is a contact: the next presence socket reads them.
      if (applied > 0) await this.admission.presenceChanged();
    }
    if (applied === 0) return;
    if (update.hidden || update.unread_count === 0) {
      this.away.dropConversation(update.conversation_id);
      if (update.hidden) this.away.dropCalls(update.conversation_id);
      if (update.hidden) return;
    }
    if (this.openSockets() === 0) {
      await this.awayMessage(update, userId);
      return;
    }
    await this.publish({
      type: "conversation",
      conversation_id: update.conversation_id,
      last_message: update.last_message,
      last_message_time: update.last_message_time,
      unread_count: update.unread_count,
      unread_total: this.unreadTotal(),
      message: update.message,
    });
  }

  /** A new message or gift for the member while no page of theirs is open: a push to come. */
  private async awayMessage(update: ListUpdate, userId: string | undefined): Promise<void> {
    const message = update.message;
    if (!message || message.sender_id !== update.other_id || update.unread_count === 0) return;
    if (userId) await this.away.rememberMember(userId);
    const name = await this.away.nameOf(update.other_id);
    const event = name ? messageEvent(update, name) : null;
    if (event) await this.away.add(event);
  }

  private conversationHeld(conversationId: string): boolean {
    return (
      this.ctx.storage.sql
        .exec("SELECT 1 FROM chat_list WHERE conversation_id = ?", conversationId)
        .toArray().length > 0
    );
  }

  /** The member started (or came back to) a conversation: it is in their active list. */
  async listConversation(entry: ListEntry): Promise<void> {
    exec(
      this.ctx.storage.sql,
      sql`INSERT INTO chat_list (conversation_id, other_id, activity_at, listed)
       VALUES (${entry.conversation_id}, ${entry.other_id}, ${entry.activity_at}, 1)
       ON CONFLICT (conversation_id) DO UPDATE SET listed = 1, archived_at = NULL`,
    );
  }

  /** Archiving is the member's own; a new message brings the conversation back. */
  async setArchived(entry: ListEntry, archivedAt: string | null): Promise<void> {
    exec(
      this.ctx.storage.sql,
      sql`INSERT INTO chat_list (conversation_id, other_id, activity_at, archived_at)
       VALUES (${entry.conversation_id}, ${entry.other_id}, ${entry.activity_at}, ${archivedAt})
       ON CONFLICT (conversation_id) DO UPDATE SET archived_at = excluded.archived_at`,
    );
  }

  /**
   * The migration's list state for one conversation (from D1): listed and archived as they were,
   * unless the hub already holds a newer state of them.
   */
  async importListState(
    entry: ListEntry,
    listed: boolean,
    archivedAt: string | null,
  ): Promise<void> {
    exec(
      this.ctx.storage.sql,
      sql`INSERT INTO chat_list (conversation_id, other_id, activity_at, listed, archived_at)
       VALUES (${entry.conversation_id}, ${entry.other_id}, ${entry.activity_at}, ${listed ? 1 : 0},
         ${archivedAt})
       ON CONFLICT (conversation_id) DO UPDATE SET listed = max(chat_list.listed, excluded.listed),
         archived_at = CASE WHEN chat_list.version = 0 THEN excluded.archived_at ELSE chat_list.archived_at END`,
    );
  }

  /** The member deleted their account: their lists and claimed client ids go. */
  async forgetChat(): Promise<void> {
    exec(this.ctx.storage.sql, sql`DELETE FROM chat_list`);
    this.clientIds.forget();
    await this.away.forget();
  }

  /** The member's push subscriptions or notification settings changed (read again when needed). */
  async pushSettingsChanged(): Promise<void> {
    await this.away.invalidate();
  }

  /** A block between the member and `otherId`: nothing of the other member is pushed. */
  async forgetMember(otherId: string): Promise<void> {
    this.away.forgetMember(otherId);
  }

  /** A conversation is gone (the other member deleted their account). */
  async dropConversation(conversationId: string): Promise<void> {
    this.away.dropConversation(conversationId);
    this.away.dropCalls(conversationId);
    exec(
      this.ctx.storage.sql,
      sql`DELETE FROM chat_list WHERE conversation_id = ${conversationId}`,
    );
  }

  /**
   * A page of the member's active (or archived) list, newest activity first, after the cursor
   * (activity time and id of the last entry of the previous page).
   */
  async conversations(
    archived: boolean,
    limit: number,
    cursor: [string, string] | null = null,
  ): Promise<ListRow[]> {
    const after = cursor
      ? sql`AND (activity_at < ${cursor[0]} OR (activity_at = ${cursor[0]} AND conversation_id < ${cursor[1]}))`
      : sql``;
    return exec<ListRow>(
      this.ctx.storage.sql,
      sql`SELECT conversation_id, other_id, last_message, last_message_time, activity_at, unread_count
       FROM chat_list WHERE listed = 1 AND archived_at IS ${sql.raw(archived ? "NOT NULL" : "NULL")} ${after}
       ORDER BY activity_at DESC, conversation_id DESC LIMIT ${limit}`,
    ).toArray();
  }

  /** One conversation's entry, listed or not. */
  async conversation(conversationId: string): Promise<ListRow | null> {
    return (
      exec<ListRow>(
        this.ctx.storage.sql,
        sql`SELECT conversation_id, other_id, last_message, last_message_time, activity_at, unread_count
         FROM chat_list WHERE conversation_id = ${conversationId}`,
      ).toArray()[0] ?? null
    );
  }

  /** Unread messages over the member's active conversations (the header badge). */
  unreadTotal(): number {
    return this.ctx.storage.sql
      .exec<{ n: number }>(
        `SELECT coalesce(sum(unread_count), 0) AS n FROM chat_list
         WHERE listed = 1 AND archived_at IS NULL AND hidden = 0`,
      )
      .one().n;
  }

  /**
   * Claims a client id of this member for a conversation: answers the conversation that owns it,
   * and the conversation's lease (client-id-claims.ts).
   */
  async claimClientId(
    clientId: string,
    conversationId: string,
    memberId: string,
  ): Promise<ClientIdClaim> {
    return this.clientIds.claim(clientId, conversationId, memberId);
  }

  override async fetch(request: Request): Promise<Response> {
    if (!isUpgrade(request)) return notAnUpgrade();
    if (!(await this.admission.admits(ticketOf(request)))) {
      // A ticket of a session that ended: told so in the close, as a socket the session's end
      // closed is, so that a page still signed in asks for a fresh ticket.
      return refuseSocket(SESSION_ENDED_CLOSE, TICKET_REFUSED);
    }
    const userId = request.headers.get("X-Member-Id") ?? undefined;
    const { socket, response } = this.sockets.accept({ userId });
    // First, before anything can be published to it: how often the bell changed so far.
    socket.send(JSON.stringify({ type: "hello", bell: this.bell } satisfies MemberServerFrame));
    // The member is here: what waited to be pushed is theirs to see on the page.
    await this.away.here();
    await this.away.rememberOrigin(new URL(request.url).origin);
    log({
      event: "socket_opened",
      level: "info",
      request_id: request.headers.get("X-Request-Id") ?? undefined,
      user_id: request.headers.get("X-Member-Id") ?? undefined,
      channel: "member",
    });
    return response;
  }

  /**
   * Sends one frame to every open socket of the member; returns how many received it. A
   * notification that reaches none (the member is away) may become a push (`userId`: the
   * member's id, which the hub keeps for reading their push settings).
   */
  async publish(frame: MemberServerFrame, userId?: string): Promise<number> {
    if (frame.type === "notification" || frame.type === "notifications_read") {
      this.bell += 1;
      // Not awaited: the output gate holds the frames below until the count is stored.
      void this.ctx.storage.put(BELL_KEY, this.bell);
    }
    const delivered = this.sockets.broadcast(JSON.stringify(frame));
    if (frame.type === "notification") {
      // A new match is a contact: the next presence socket reads the member's contacts again.
      if (frame.notification.type === "match") await this.admission.presenceChanged();
      const actor = notificationActor(frame.notification);
      if (actor) this.away.rememberName(actor.id, displayName(actor));
      if (delivered === 0) await this.awayNotification(frame.notification, userId);
    }
    if (frame.type === "call") {
      if (frame.answered) {
        await this.away.answeredCall(frame.conversation_id, frame.call_id, frame.answered);
      } else if (delivered === 0 || this.away.ringPushed(frame.conversation_id, frame.call_id)) {
        // Pushed when no page is open; and a ring some browser was shown is followed there by
        // its missed call even if a page opened meanwhile.
        await this.awayCall(frame, userId);
      }
    }
    return delivered;
  }

  /**
   * A call rang, or rang out, while no page of the member is open: a push at once (away-pushes.ts
   * `addCall`). Not across a block: the room refuses a ring then, and a conversation the hub holds
   * hidden (a block either way, an unmatch, a suspension) tells nothing.
   */
  private async awayCall(frame: CallRingFrame, userId: string | undefined): Promise<void> {
    const held = this.ctx.storage.sql
      .exec<{ hidden: number }>(
        "SELECT hidden FROM chat_list WHERE conversation_id = ?",
        frame.conversation_id,
      )
      .toArray()[0];
    if (held?.hidden === 1) return;
    if (userId) await this.away.rememberMember(userId);
    const name = await this.away.nameOf(frame.user_id);
    const event = name ? callEvent(frame, name) : null;
    if (event) await this.away.addCall(event, frame.call_id);
  }

  /**
   * A notification kept off the member's bell (the kind is off in the app) but perhaps wanted by
   * push or email: nothing reaches their pages; while they are away it is heard as any other.
   */
  async heardAway(notification: NotificationView, userId: string): Promise<void> {
    if (this.openSockets() > 0) return;
    await this.awayNotification(notification, userId);
  }

  private async awayNotification(notification: NotificationView, userId: string | undefined) {
    const event = notificationEvent(notification);
    if (userId) await this.away.rememberMember(userId);
    if (event) await this.away.add(event);
  }

  /**
   * Up to `want` sends for the member in a conversation, counted against their send limit across
   * every conversation (docs/decisions/021, 048; send-budget.ts): the grant, or the refusal past
   * the limit (nothing counted then). `returned` is that room's last grant's unused sends.
   */
  async takeSends(
    limit: RateLimitSpec,
    memberId: string,
    conversationId: string,
    want: number,
    returned: SendsReturned | null,
  ): Promise<{ grant: SendGrant } | { refusal: Refusal }> {
    return this.sends.take(limit, memberId, conversationId, want, returned);
  }

  /**
   * The member is opening a socket in this conversation's room: noted (see `endSessions`) when
   * their ticket still opens sockets. Returns whether it does.
   */
  async noteConversation(
    conversationId: string,
    ticket: TicketSession = null,
  ): Promise<ConversationAdmission> {
    if (!(await this.admission.admits(ticket))) return "refused";
    // A conversation in the member's list, not hidden by a block, an unmatch or a suspension, is
    // theirs to open; any other is checked against D1 by the Worker (and noted then).
    const held = this.ctx.storage.sql
      .exec<{ hidden: number }>(
        "SELECT hidden FROM chat_list WHERE conversation_id = ?",
        conversationId,
      )
      .toArray()[0];
    if (held && held.hidden === 0) await this.rememberConversation(conversationId);
    return held && held.hidden === 0 ? "member" : "check";
  }

  /** Notes a conversation the member opened a socket in (see `endSessions`). */
  async rememberConversation(conversationId: string): Promise<void> {
    await this.ctx.storage.put(CONVERSATION_PREFIX + conversationId, Date.now());
    const noted = await this.ctx.storage.list<number>({ prefix: CONVERSATION_PREFIX });
    if (noted.size <= CONVERSATIONS_KEPT) return;
    const oldest = [...noted].sort((a, b) => a[1] - b[1]).slice(0, noted.size - CONVERSATIONS_KEPT);
    await this.ctx.storage.delete(oldest.map(([key]) => key));
  }

  /** What the member's presence socket starts with, or null when their ticket is refused. */
  async presenceStart(userId: string, ticket: TicketSession = null): Promise<PresenceStart | null> {
    return this.admission.presenceStart(userId, ticket);
  }

  /** The member's blocks, contacts or hidden setting changed. */
  async presenceChanged(): Promise<void> {
    await this.admission.presenceChanged();
  }

  /**
   * The member's sessions ended (`sessions`: which): their tickets open nothing any more, every
   * socket here closes, and the answer is the conversations whose rooms may still hold a socket of
   * theirs.
   */
  async endSessions(sessions: EndedSessions = "all"): Promise<string[]> {
    await this.admission.revoke(sessions);
    return this.closeSessionSockets("Signed out.");
  }

  /** Closes every socket here; answers the conversations whose rooms may hold one of the member's. */
  private async closeSessionSockets(reason: string): Promise<string[]> {
    this.sockets.close(this.sockets.sockets(), SESSION_ENDED_CLOSE, reason);
    const noted = await this.ctx.storage.list<number>({ prefix: CONVERSATION_PREFIX });
    return [...noted.keys()].map((key) => key.slice(CONVERSATION_PREFIX.length));
  }

  /**
   * Sessions whose tickets opened sockets here and that ended by themselves (their absolute
   * expiry, socket-admission.ts): ended as a sign-out of each would end them (`endMemberSockets`
   * with `{only}`), without reading D1: their tickets are revoked, the push settings read again,
   * and the member's sockets here, in presence and in their conversations close.
   */
  private async endExpiredSessions(now = Date.now()): Promise<void> {
    const due = await this.admission.sessionsDue(now);
    if (!due) return;
    for (const sid of due.sids) await this.admission.revoke({ only: sid }, now);
    await this.away.invalidate();
    const conversations = await this.closeSessionSockets(SESSION_EXPIRED);
    await Promise.all([
      closePresenceSockets(this.env, due.member),
      closeConversationSockets(this.env, due.member, conversations),
    ]);
  }

  async connectionCount(): Promise<number> {
    return this.sockets.count();
  }

  /** Sockets of the member that are open and were not ended by the hub (`except` is closing). */
  private openSockets(except?: WebSocket): number {
    return this.sockets.openCount(except);
  }

  /**
   * Ends the sessions that expired (socket-admission.ts) and sends the pushes that are due
   * (away-pushes.ts), then keeps the alarm at the earlier of what each waits for next.
   */
  override async alarm(): Promise<void> {
    await loggedAlarm("member_hub_alarm_failed", async () => {
      await this.endExpiredSessions();
      await this.away.alarm(this.openSockets());
      await this.admission.scheduleSessionEnds();
    });
  }

  override async webSocketMessage(socket: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    // Pings are answered by the auto-response; a socket the hub ended is not heard (nothing a
    // client sends there acts). A socket past its frame rate is closed (FRAME_FLOOD_CLOSE) and
    // receives nothing more.
    if (!this.sockets.live(socket)) return;
    if (!this.sockets.withinRate(socket)) return;
    const frame = parseFrame(memberClientFrame, typeof raw === "string" ? raw : null);
    if (frame?.type !== "received") return;
    // The member's device received these messages while their conversation was not open: the
    // room checks that the conversation is theirs and that the messages are the other member's.
    const userId = this.sockets.attachment(socket)?.userId;
    if (!userId) return;
    await conversationRoom(this.env, frame.conversation_id).received(
      frame.conversation_id,
      userId,
      frame.ids,
    );
  }

  override async webSocketClose(socket: WebSocket): Promise<void> {
    closeNormally(socket);
    if (this.openSockets(socket) === 0) await this.away.left();
  }

  override async webSocketError(socket: WebSocket): Promise<void> {
    await this.webSocketClose(socket);
  }
}

/** Where the hub keeps its bell count. */
const BELL_KEY = "bell";

/** The close reason of a socket whose ticket was refused. */
const TICKET_REFUSED = "Ticket refused.";

/** The close reason of a socket whose session ended by itself. */
const SESSION_EXPIRED = "Session expired.";

/** The ticket's session the Worker checked, from the upgrade's headers (null: none). */
function ticketOf(request: Request): TicketSession {
  const sid = request.headers.get("X-Ticket-Session");
  const sub = request.headers.get("X-Member-Id");
  const iat = Number(request.headers.get("X-Ticket-Issued"));
  const ends = request.headers.has("X-Ticket-Ends")
    ? Number(request.headers.get("X-Ticket-Ends"))
    : null;
  if (!sid || !sub || !Number.isFinite(iat)) return null;
  return { sid, iat, sub, ends: ends !== null && Number.isFinite(ends) ? ends : null };
}
