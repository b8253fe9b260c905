import { and, desc, eq, or } from "drizzle-orm";
import type { BlockInput } from "~/schemas/block";
import { conversationBlockChanged } from "./chat-rooms.server";
import { blocks } from "./db/blocks";
import { likes } from "./db/likes";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { notFound, ValidationError } from "./errors.server";
import { cardColumns, toMemberCard } from "./members.server";
import { forgetAwayPushes } from "./member-channel.server";
import { presenceBlockChanged } from "./presence.server";
import { isBlockedEitherWay } from "./visibility.server";

export const BLOCKED_MESSAGE = "User has been blocked successfully.";
export const UNBLOCKED_MESSAGE = "User has been unblocked successfully.";

export async function blockStatus(env: Env, me: string, other: string) {
  const rows = await getDb(env.DB)
    .select({ blockerId: blocks.blockerId })
    .from(blocks)
    .where(
      or(
        and(eq(blocks.blockerId, me), eq(blocks.blockedId, other)),
        and(eq(blocks.blockerId, other), eq(blocks.blockedId, me)),
      ),
    )
    .all();
  const isBlocked = rows.some((r) => r.blockerId === me);
  const isBlockedBy = rows.some((r) => r.blockerId === other);
  return {
    is_blocked: isBlocked,
    is_blocked_by: isBlockedBy,
    has_mutual_block: isBlocked && isBlockedBy,
  };
}

async function requireMember(env: Env, id: string) {
  const row = await getDb(env.DB)
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(eq(schema.users.id, id))
    .get();
  if (!row) throw notFound("Member not found.");
}

/**
 * Blocking twice keeps the first block (and its reason); it never fails. The block and the removal
 * of the likes between the two members (both ways, so a match ends) are one batch: unblocking
 * later restores visibility, not the likes.
 */
export async function blockMember(env: Env, me: string, input: BlockInput) {
  if (input.user_id === me) throw new ValidationError({ user_id: ["You cannot block yourself."] });
  await requireMember(env, input.user_id);
  const db = getDb(env.DB);
  await db.batch([
    db
      .insert(blocks)
      .values({
        blockerId: me,
        blockedId: input.user_id,
        reasonType: input.reason_type,
        reason: input.reason ?? null,
        createdAt: nowIso(),
      })
      .onConflictDoNothing(),
    db
      .delete(likes)
      .where(
        or(
          and(eq(likes.likerId, me), eq(likes.likedId, input.user_id)),
          and(eq(likes.likerId, input.user_id), eq(likes.likedId, me)),
        ),
      ),
  ]);
  // Their conversation's room stops at once: sockets close (the Worker refuses them from now on)
  // and no send on its way is stored.
  await conversationBlockChanged(env, me, input.user_id, true);
  // Neither sees the other's presence any more, on pages already open too.
  await presenceBlockChanged(env, me, input.user_id);
  // Nothing of either waits to be pushed to the other.
  await forgetAwayPushes(env, me, input.user_id);
  return { message: BLOCKED_MESSAGE };
}

export async function unblockMember(env: Env, me: string, other: string) {
  await getDb(env.DB)
    .delete(blocks)
    .where(and(eq(blocks.blockerId, me), eq(blocks.blockedId, other)));
  await conversationBlockChanged(env, me, other, await isBlockedEitherWay(env, me, other));
  await presenceBlockChanged(env, me, other);
  return { message: UNBLOCKED_MESSAGE };
}

export const BLOCKED_PAGE_SIZE = 50;

/**
 * The members I blocked, newest first, a page at a time (docs/api.md "Pagination": no unbounded
 * lists). Their photo and presence stay hidden (a block hides them both ways), so the cards carry
 * neither.
 */
export async function listBlocked(env: Env, me: string, page = 1) {
  const current = Number.isInteger(page) && page > 0 ? page : 1;
  const db = getDb(env.DB);
  const rows = await db
    .select({ card: cardColumns, blockedAt: blocks.createdAt, reasonType: blocks.reasonType })
    .from(blocks)
    .innerJoin(schema.users, eq(schema.users.id, blocks.blockedId))
    .innerJoin(schema.profiles, eq(schema.profiles.userId, schema.users.id))
    .where(eq(blocks.blockerId, me))
    .orderBy(desc(blocks.createdAt), blocks.blockedId)
    .limit(BLOCKED_PAGE_SIZE + 1)
    .offset((current - 1) * BLOCKED_PAGE_SIZE)
    .all();
  const now = Date.now();
  return {
    // A block hides photos and presence both ways: the card keeps neither.
    blocked_users: rows.slice(0, BLOCKED_PAGE_SIZE).map((r) => ({
      ...toMemberCard(r.card, new Map(), now),
      photo_url: null,
      photo_urls: null,
      online: false,
      last_seen_at: null,
      blocked_at: r.blockedAt,
      reason_type: r.reasonType,
    })),
    meta: { page: current, per_page: BLOCKED_PAGE_SIZE, has_more: rows.length > BLOCKED_PAGE_SIZE },
  };
}
