import { sql } from "drizzle-orm";
import type { GiftList } from "~/schemas/credits";
import type { Gift } from "~/schemas/chat";
import { activityStatement } from "./activities.server";
import {
  creditsOwed,
  grantStatements,
  isInsufficientCredits,
  spendStatements,
} from "./credits.server";
import { sha256Hex } from "./crypto.server";
import { nowIso } from "./db.server";
import type { Env } from "./env.server";
import { memberCards, type MemberCard } from "./members.server";
import { notificationRemoval, pendingNotification } from "./notifications.server";
import { creditTransactions, giftMessages, gifts } from "./db/chat";
import { all, allOf, firstOf, selection, statement } from "./sql.server";
import { isActiveMember, neitherBlocked } from "./visibility.server";

/**
 * Gifts: the spend of a gift message (one D1 batch: the ledger row and totals, the gift's row
 * in `gift_messages`, the recipient's notification and both members' activities, all referenced by
 * the message's id) and the gifts page (read from
 * `gift_messages`, since the messages themselves live in their conversations' rooms).
 */
export const GIFTS_PER_PAGE = 20;

/** The ledger reason of a gift's spend, and of its refund when the message could not be stored. */
export const GIFT_REASON = "gift";
export const GIFT_REFUND_REASON = "gift_refund";

export const GIFT_REQUIRED = "Please choose a gift.";

/** A gift of the catalogue as the API shows it. */
const giftFields = selection({
  id: gifts.id,
  name: gifts.name,
  icon: gifts.icon,
  price_credits: gifts.priceCredits,
});

/** An active gift of the catalogue; null when there is none with that id. */
export async function activeGift(env: Env, giftId: string): Promise<Gift | null> {
  return firstOf(
    env.DB,
    giftFields,
    sql`SELECT ${giftFields.sql} FROM gifts WHERE id = ${giftId} AND active = 1`,
  );
}

/** The active gifts of the catalogue, in their order. */
export async function giftCatalogue(env: Env): Promise<Gift[]> {
  return allOf(
    env.DB,
    giftFields,
    sql`SELECT ${giftFields.sql} FROM gifts WHERE active = 1 ORDER BY position, id`,
  );
}

/**
 * The id of a gift message sent with a client id: the same sender, conversation and client id
 * always give the same id, so that a retry finds the spend an earlier attempt made (the ledger's
 * reference is unique) instead of spending again.
 */
export async function giftMessageId(conversationId: string, senderId: string, clientId: string) {
  return `${conversationId}.g${(await sha256Hex(`${senderId}:${clientId}`)).slice(0, 24)}`;
}

export interface GiftSpend {
  messageId: string;
  conversationId: string;
  senderId: string;
  recipientId: string;
  gift: Gift;
  /** The message's text (the notification's preview). */
  text: string;
  sentAt: string;
}

/**
 * What a gift's spend writes besides the ledger, by ids made from the message's: the recipient's
 * notification and both members' activities, so that a retry finds them and a refund removes them.
 */
const giftRecordIds = (messageId: string) => ({
  notification: `${messageId}.n`,
  sent: `${messageId}.s`,
  received: `${messageId}.r`,
});

export interface GiftSpent {
  /**
   * "spent": done now; "found": an earlier attempt with the same message id had spent it (nothing
   * changes); "short": the balance is too low and nothing changed; "refunded": an earlier attempt
   * spent and was refunded (its client id cannot pay again); "owed": gifting is paused while the
   * member owes credits (a refund or dispute), and nothing changed.
   */
  outcome: "spent" | "found" | "short" | "refunded" | "owed";
  /** Once the message is stored: pushes the recipient's notification to their open pages. */
  announce: () => Promise<unknown>;
}

/**
 * Spends a gift's price for one message, in one D1 batch with everything the gift records: the
 * ledger row and totals, the gift's row in `gift_messages`, the recipient's notification (unless
 * they switched gifts off) and both members' activities. The caller has checked the block rules;
 * the notification goes out when the message is stored (`announce`).
 */
export async function spendForGift(env: Env, spend: GiftSpend): Promise<GiftSpent> {
  const ids = giftRecordIds(spend.messageId);
  const notification = await pendingNotification(
    env,
    {
      to: spend.recipientId,
      type: "gift",
      actorId: spend.senderId,
      data: {
        conversation_id: spend.conversationId,
        message_id: spend.messageId,
        preview: spend.text.slice(0, 140),
        gift: spend.gift,
      },
    },
    ids.notification,
  );
  const activity = { conversation_id: spend.conversationId, gift: spend.gift };
  const now = Date.parse(spend.sentAt);
  const outcome = (o: GiftSpent["outcome"]): GiftSpent => ({
    outcome: o,
    announce: () => notification.announce(o === "spent"),
  });
  try {
    await env.DB.batch([
      ...spendStatements(env, {
        userId: spend.senderId,
        amount: spend.gift.price_credits,
        reason: GIFT_REASON,
        reference: spend.messageId,
        createdAt: spend.sentAt,
      }),
      statement(
        env.DB,
        sql`INSERT INTO gift_messages (message_id, conversation_id, sender_id, recipient_id, gift_id,
           price_credits, sent_at) VALUES (${spend.messageId}, ${spend.conversationId}, ${spend.senderId}, ${spend.recipientId}, ${spend.gift.id}, ${spend.gift.price_credits}, ${spend.sentAt})`,
      ),
      ...(notification.write ? [notification.write] : []),
      activityStatement(
        env,
        {
          userId: spend.senderId,
          type: "gift_sent",
          otherUserId: spend.recipientId,
          data: activity,
        },
        now,
        { id: ids.sent },
      ),
      activityStatement(
        env,
        {
          userId: spend.recipientId,
          type: "gift_received",
          otherUserId: spend.senderId,
          data: activity,
        },
        now,
        { id: ids.received },
      ),
    ]);
    return outcome("spent");
  } catch (error) {
    // An earlier attempt's spend (the balance may be short by now: it paid already), unless it
    // was refunded since (that attempt was refused after its spend).
    const results = await allOf(
      env.DB,
      reasonFields,
      sql`SELECT ${reasonFields.sql} FROM credit_transactions
       WHERE reason IN (${GIFT_REASON}, ${GIFT_REFUND_REASON}) AND reference = ${spend.messageId} AND user_id = ${spend.senderId}`,
    );
    if (results.some((r) => r.reason === GIFT_REFUND_REASON)) return outcome("refunded");
    if (results.length > 0) return outcome("found");
    if (isInsufficientCredits(error)) {
      return outcome((await creditsOwed(env, spend.senderId)) > 0 ? "owed" : "short");
    }
    throw error;
  }
}

/**
 * Gives a gift's credits back when its message could not be stored after the spend (a block
 * arrived in between): once per message, and the gift leaves the history with its notification
 * and activities.
 */
export async function refundGift(
  env: Env,
  spend: Pick<GiftSpend, "messageId" | "senderId" | "gift">,
) {
  const ids = giftRecordIds(spend.messageId);
  await env.DB.batch([
    ...grantStatements(env, {
      userId: spend.senderId,
      amount: spend.gift.price_credits,
      reason: GIFT_REFUND_REASON,
      reference: spend.messageId,
      createdAt: nowIso(),
    }),
    statement(env.DB, sql`DELETE FROM gift_messages WHERE message_id = ${spend.messageId}`),
    notificationRemoval(env, ids.notification),
    statement(env.DB, sql`DELETE FROM activities WHERE id IN (${ids.sent}, ${ids.received})`),
  ]);
}

/**
 * The gifts page: the gifts a member received and sent, newest first, with the price paid. A gift
 * stays in the history after its message is deleted (its credits stay spent). The other member's
 * card shows while neither side blocks the other and they are active; otherwise the gift reads as
 * from or to "a member".
 */
export interface GiftHistoryEntry {
  id: string;
  conversation_id: string;
  gift: { id: string; name: string; icon: string };
  price_credits: number;
  sent_at: string;
  user: MemberCard | null;
}

const reasonFields = selection({ reason: creditTransactions.reason });

/** A gift message of the page, and the other member of it (`other`). */
const historyFields = (other: typeof giftMessages.senderId | typeof giftMessages.recipientId) =>
  selection({
    id: giftMessages.messageId,
    conversation_id: giftMessages.conversationId,
    gift_id: gifts.id,
    name: gifts.name,
    icon: gifts.icon,
    price: giftMessages.priceCredits,
    sent_at: giftMessages.sentAt,
    other_id: other,
  });

export async function listGiftHistory(
  env: Env,
  me: string,
  list: GiftList,
  { page = 1, perPage = GIFTS_PER_PAGE }: { page?: number; perPage?: number } = {},
) {
  const mine = list === "sent" ? giftMessages.senderId : giftMessages.recipientId;
  const other = list === "sent" ? giftMessages.recipientId : giftMessages.senderId;
  const fields = historyFields(other);
  const results = (
    await all<Record<string, unknown>>(
      env.DB,
      sql`SELECT ${fields.sql}, ${neitherBlocked(me, other)} AND ${isActiveMember(other)} AS visible
       FROM gift_messages
       JOIN gifts ON gifts.id = gift_messages.gift_id
       WHERE ${mine} = ${me}
       ORDER BY gift_messages.sent_at DESC, gift_messages.message_id DESC
       LIMIT ${perPage + 1} OFFSET ${(page - 1) * perPage}`,
    )
  ).map((row) => ({ ...fields.read(row), visible: row.visible as number }));
  const rows = results.slice(0, perPage);
  const cards = new Map(
    (
      await memberCards(
        env,
        rows.filter((r) => r.visible).map((r) => r.other_id),
      )
    ).map((c) => [c.id, c]),
  );
  const gifts: GiftHistoryEntry[] = rows.map((r) => ({
    id: r.id,
    conversation_id: r.conversation_id,
    gift: { id: r.gift_id, name: r.name, icon: r.icon },
    price_credits: r.price,
    sent_at: r.sent_at,
    user: r.visible ? (cards.get(r.other_id) ?? null) : null,
  }));
  return { gifts, meta: { page, per_page: perPage, has_more: results.length > perPage } };
}
