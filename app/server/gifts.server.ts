import type { GiftList } from "~/schemas/credits";
import type { Env } from "./env.server";
import { memberCards, type MemberCard } from "./members.server";

/**
 * The gifts page: the gifts a member received and sent, read from the gift messages of their
 * conversations, newest first, with the price paid (the sender's ledger row for the message).
 * A gift stays in the history after its message is deleted (its credits stay spent). The other
 * member's card shows while neither side blocks the other and they are active; otherwise the
 * gift reads as from or to "a member".
 */
export const GIFTS_PER_PAGE = 20;

export interface GiftHistoryEntry {
  id: string;
  conversation_id: string;
  gift: { id: string; name: string; icon: string };
  price_credits: number;
  sent_at: string;
  user: MemberCard | null;
}

interface Row {
  id: string;
  conversation_id: string;
  gift_id: string;
  name: string;
  icon: string;
  price: number;
  sent_at: string;
  other_id: string;
  visible: number;
}

export async function listGiftHistory(
  env: Env,
  me: string,
  list: GiftList,
  { page = 1, perPage = GIFTS_PER_PAGE }: { page?: number; perPage?: number } = {},
) {
  const other = "CASE WHEN c.user_low = ?1 THEN c.user_high ELSE c.user_low END";
  const { results } = await env.DB.prepare(
    `SELECT m.id, m.conversation_id, g.id AS gift_id, g.name, g.icon,
       coalesce(t.amount, g.price_credits) AS price, m.sent_at,
       CASE WHEN m.sender_id = ?1 THEN ${other} ELSE m.sender_id END AS other_id,
       NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = ?1 AND b.blocked_id = ${other})
           OR (b.blocker_id = ${other} AND b.blocked_id = ?1))
         AND EXISTS (SELECT 1 FROM users o WHERE o.id = ${other} AND o.status = 'active') AS visible
     FROM conversations c
     JOIN messages m ON m.conversation_id = c.id
     JOIN gifts g ON g.id = m.gift_id
     LEFT JOIN credit_transactions t ON t.reason = 'gift' AND t.reference = m.id
     WHERE (c.user_low = ?1 OR c.user_high = ?1) AND m.gift_id IS NOT NULL
       AND ${list === "sent" ? "m.sender_id = ?1" : "m.sender_id <> ?1"}
     ORDER BY m.sent_at DESC, m.id DESC
     LIMIT ?2 OFFSET ?3`,
  )
    .bind(me, perPage + 1, (page - 1) * perPage)
    .all<Row>();
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
