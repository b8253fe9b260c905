/**
 * What a presence shard keeps to outlive hibernation and restarts: each socket's attachment, and
 * the keys of the object's storage (docs/decisions/011).
 */

/** What each socket carries through hibernation (attachments hold at most 2 KB). */
export interface Attachment {
  /** The socket's id (a watch set too large for the attachment is stored under `watch:{sid}`). */
  sid: string;
  userId: string;
  hidden: boolean;
  /** Whether the member has blocks (kept in storage under `blocks:{id}`). */
  hasBlocks: boolean;
  /** The socket's watch set, when it fits (WATCH_IN_ATTACHMENT); otherwise it is in storage. */
  watch?: string[];
  /**
   * The shard closed the socket (its session ended): nothing it sends acts, whatever its client
   * does with the close frame, and a wake from hibernation does not bring it back.
   */
  ended?: true;
}

/** `leave:{id}`: when the member's grace period ends. */
export const LEAVE_PREFIX = "leave:";
/** `blocks:{id}`: a connected member's blocks. */
export const BLOCKS_PREFIX = "blocks:";
/** `watch:{sid}`: a watch set too large for its socket's attachment. */
export const WATCH_PREFIX = "watch:";
/** `member:{id}`: the member has a socket here (or is in grace), so that a restart knows them. */
export const MEMBER_PREFIX = "member:";
/** The shard's own number. */
export const SHARD_KEY = "shard";
/**
 * Watch sets up to this many characters (about 60 ids) live in the socket's attachment, which
 * costs no storage write; larger ones in storage.
 */
export const WATCH_IN_ATTACHMENT = 1500;

/** A member with a socket here, as stored for after a restart. */
export interface StoredMember {
  hidden: boolean;
}

/** A socket's watch set in storage, with whose socket it is. */
export interface StoredWatch {
  userId: string;
  hidden: boolean;
  ids: string[];
}

/** The storage calls take at most 128 keys: lists in pieces of that many. */
export function chunks<T>(items: T[], size = 128): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
