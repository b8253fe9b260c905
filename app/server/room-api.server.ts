import type { ChatMessageView, ChatServerFrame } from "~/realtime/chat";
import type { MemberServerFrame } from "~/realtime/member";
import type { Gift, PageMeta } from "~/schemas/chat";
import type { SafetyNote } from "~/schemas/message-safety";
import type { NotificationView } from "~/schemas/notifications";

/**
 * What the Durable Objects answer over RPC, and the values they exchange: the Worker's `Env`
 * (env.server.ts) types its namespaces with these interfaces, which the room classes implement,
 * so that nothing below the entries imports a room class. Types only.
 */

/** A limit as configured: at most `max` hits in any `windowSeconds`. */
export interface RateLimitSpec {
  max: number;
  windowSeconds: number;
}

/** A refusal as the HTTP API answers it (the room returns it; the Worker turns it into a 4xx). */
export interface Refusal {
  status: number;
  message: string;
  retryAfter?: number;
  /** A 422's field errors. */
  errors?: Record<string, string[]>;
  /** A 409 "Are you sure?" of the message-safety rules. */
  safety?: SafetyNote;
}

/** What a room answers: the value, or the refusal the API turns into a 4xx. */
export type RoomResult<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/**
 * A photo or voice note as the room stores it (JSON in its `attachment` column): where R2 holds it
 * and what the API shows of it. The R2 key never leaves the server.
 */
export interface StoredAttachment {
  kind: "photo" | "voice";
  key: string;
  content_type: string;
  size: number;
  width?: number;
  height?: number;
  duration_ms?: number;
  view_once: boolean;
  opened_at?: string | null;
}

export interface SendRequest {
  conversationId: string;
  senderId: string;
  text: string;
  clientId: string | null;
  gift: Gift | null;
  /** A photo or voice note stored in R2 already (POST …/attachments). */
  attachment?: StoredAttachment | null;
  limit: RateLimitSpec;
  /** The sender confirmed text the safety rules asked about ("Are you sure?"). */
  confirm?: boolean;
  /**
   * Whether the answer waits until both members' hubs have the new list entries (default: yes,
   * as POST …/messages answers); the room's socket does not wait, and its sends' list updates
   * coalesce.
   */
  listsBeforeAnswer?: boolean;
}

export interface StoredMessage extends ChatMessageView {
  deleted_at: string | null;
}

/** A member's list entry as the room computed it after a change (absolute values). */
export interface ListUpdate {
  conversation_id: string;
  other_id: string;
  /** The room's change counter: an entry older than the one held is ignored. */
  version: number;
  last_message: string | null;
  last_message_time: string | null;
  /** What the list is ordered by: the newest message's time, or when the conversation began. */
  activity_at: string;
  unread_count: number;
  /** Either member blocked the other, or the other member is suspended: out of the totals. */
  hidden: boolean;
  /** The new message that caused the change (it lists the conversation and brings it back). */
  message: {
    id: string;
    sender_id: string;
    message: string;
    sent_at: string;
    /** The gift's name when the message carries one. */
    gift?: string | null;
    /** A call's line (its push is the call's own, away-pushes.ts). */
    call?: boolean;
  } | null;
}

export type ListRow = {
  conversation_id: string;
  other_id: string;
  last_message: string | null;
  last_message_time: string | null;
  activity_at: string;
  unread_count: number;
};

/** A list entry the chat module starts or changes for the member (not from a room). */
export interface ListEntry {
  conversation_id: string;
  other_id: string;
  activity_at: string;
}

/** One member's state at their presence home, with its version (docs/decisions/011). */
export interface Change {
  id: string;
  online: boolean;
  version: number;
}

/** The room of one conversation (durable-objects/conversation/room.ts). */
export interface ConversationRoomApi {
  publish(frame: ChatServerFrame): Promise<string[]>;
  closeMember(userId: string): Promise<number>;
  closeAll(reason?: string): Promise<number>;
  connectionCount(): Promise<number>;
  setBlocked(conversationId: string, blocked: boolean): Promise<void>;
  setMemberActive(conversationId: string, userId: string, active: boolean): Promise<void>;
  end(conversationId: string): Promise<void>;
  send(req: SendRequest): Promise<RoomResult<{ message: ChatMessageView; created: boolean }>>;
  page(
    conversationId: string,
    me: string,
    query: { cursor?: number; after?: number },
  ): Promise<RoomResult<{ messages: ChatMessageView[]; meta: PageMeta }>>;
  read(conversationId: string, me: string): Promise<RoomResult<null>>;
  deleteMessage(
    conversationId: string,
    me: string,
    messageId: string,
  ): Promise<RoomResult<string | null>>;
  react(
    conversationId: string,
    me: string,
    messageId: string,
    emoji: string | null,
  ): Promise<RoomResult<null>>;
  received(conversationId: string, me: string, ids: string[]): Promise<RoomResult<null>>;
  findMessage(conversationId: string, messageId: string): Promise<StoredMessage | null>;
  openAttachment(
    conversationId: string,
    me: string,
    messageId: string,
  ): Promise<RoomResult<{ attachment: StoredAttachment; consume: boolean }>>;
  sentBy(conversationId: string, userId: string): Promise<ChatMessageView[]>;
  reactionsBy(
    conversationId: string,
    userId: string,
  ): Promise<{ message_id: string; emoji: string; reacted_at: string }[]>;
  allMessages(conversationId: string): Promise<StoredMessage[]>;
  referencedAttachments(keys: string[]): Promise<string[]>;
  erase(): Promise<void>;
  importLegacy(conversationId: string): Promise<number>;
  surrenderClientIds(senderId: string, epoch: number, since: string): Promise<string[]>;
  returnSends(senderId: string, grantId: string): Promise<number | null>;
}

/**
 * A member's hub's answer to a claim of a client id (durable-objects/client-id-claims.ts): the
 * conversation that owns it, and the lease the claiming conversation holds, if any: its number,
 * and the ids the member claimed in other conversations.
 */
export interface ClientIdClaim {
  owner: string;
  lease: { epoch: number; elsewhere: string[] } | null;
}

/**
 * Sends a member's hub granted a conversation's room (durable-objects/send-budget.ts): the grant's
 * id, how many, and the window of the send limit they were counted in.
 */
export interface SendGrant {
  id: string;
  count: number;
  windowStart: number;
}

/** The sends of a grant its room did not use, given back to the member's hub. */
export interface SendsReturned {
  id: string;
  unused: number;
  windowStart: number;
}

/** The hub of one member (durable-objects/member-hub.ts): their sockets and conversation list. */
export interface MemberHubApi {
  applyConversation(update: ListUpdate, userId?: string): Promise<void>;
  listConversation(entry: ListEntry): Promise<void>;
  setArchived(entry: ListEntry, archivedAt: string | null): Promise<void>;
  importListState(entry: ListEntry, listed: boolean, archivedAt: string | null): Promise<void>;
  forgetChat(): Promise<void>;
  dropConversation(conversationId: string): Promise<void>;
  conversations(
    archived: boolean,
    limit: number,
    cursor?: [string, string] | null,
  ): Promise<ListRow[]>;
  conversation(conversationId: string): Promise<ListRow | null>;
  unreadTotal(): number;
  claimClientId(clientId: string, conversationId: string, memberId: string): Promise<ClientIdClaim>;
  publish(frame: MemberServerFrame, userId?: string): Promise<number>;
  heardAway(notification: NotificationView, userId: string): Promise<void>;
  pushSettingsChanged(): Promise<void>;
  forgetMember(otherId: string): Promise<void>;
  noteConversation(conversationId: string, ticket?: TicketSession): Promise<ConversationAdmission>;
  rememberConversation(conversationId: string): Promise<void>;
  presenceStart(userId: string, ticket?: TicketSession): Promise<PresenceStart | null>;
  presenceChanged(): Promise<void>;
  takeSends(
    limit: RateLimitSpec,
    memberId: string,
    conversationId: string,
    want: number,
    returned: SendsReturned | null,
  ): Promise<{ grant: SendGrant } | { refusal: Refusal }>;
  endSessions(sessions?: EndedSessions): Promise<string[]>;
  connectionCount(): Promise<number>;
}

/**
 * A checked socket ticket's session (socket-ticket.server.ts), as the Worker passes it on to the
 * member's hub; null when the socket came with its session read from D1.
 */
export type TicketSession = {
  sid: string;
  iat: number;
  /** The member. */
  sub: string;
  /** When the session ends by itself (ms since the epoch); null when the ticket does not say. */
  ends: number | null;
} | null;

/** Which of a member's sessions ended (see `endMemberSockets`): one, all but one, or all. */
export type EndedSessions = { only: string } | { allBut: string } | "all";

/**
 * What a presence socket starts with (presence.server.ts `presenceConnectInfo`, kept by the
 * member's hub): who is on either side of a block with the member, their contacts (the watch set
 * before the page sends its own), and whether they hide their online status.
 */
export interface PresenceStart {
  blocks: string[];
  contacts: string[];
  hidden: boolean;
}

/**
 * What a member's hub answers a socket opening in a conversation: their ticket is refused, the
 * conversation is one of theirs (listed, not hidden: noted), or it must be checked against D1.
 */
export type ConversationAdmission = "refused" | "member" | "check";

/** One shard of the presence room (durable-objects/presence/room.ts, docs/decisions/011). */
export interface PresenceRoomApi {
  writeLastSeen(): Promise<number>;
  watchRemote(shard: number, from: number, add: string[], remove: string[]): Promise<Change[]>;
  changes(shard: number, from: number, changes: Change[]): Promise<void>;
  reportCount(shard: number, from: number, count: number): Promise<number>;
  blockChanged(shard: number, userId: string, otherId: string, blocked: boolean): Promise<void>;
  setHidden(shard: number, userId: string, hidden: boolean): Promise<void>;
  closeMember(shard: number, userId: string): Promise<number>;
  connectionCount(): Promise<number>;
}
