import { listConversations } from "./chat.server";
import type { Env } from "./env.server";
import { listLikes } from "./likes.server";
import { listProfileViewers } from "./profile-views.server";

/** How many of each the dashboard shows; the likes page and the chat have the full lists. */
export const DASHBOARD_ITEMS = 6;

/**
 * GET /dashboard: what matters to the member now: who liked them and is waiting for an answer
 * (and what their like said),
 * their newest matches, conversations with unread messages, and how many members viewed them.
 */
export async function dashboardSummary(env: Env, me: string) {
  const [received, matches, conversations, viewers] = await Promise.all([
    listLikes(env, me, "received", { perPage: DASHBOARD_ITEMS }),
    listLikes(env, me, "matches", { perPage: DASHBOARD_ITEMS }),
    listConversations(env, me),
    listProfileViewers(env, me, { perPage: DASHBOARD_ITEMS }),
  ]);
  const summary = {
    new_likes: {
      // Each with what their like said, if anything, as in GET /my/likes's received cards.
      members: received.cards.map(({ at, ...card }) => {
        const note = received.notes.get(card.id);
        return {
          ...card,
          liked_at: at,
          comment: note?.comment ?? null,
          comment_safety: note?.comment_safety ?? null,
        };
      }),
      total: received.meta.total,
    },
    new_matches: {
      members: matches.cards.map(({ at, ...card }) => ({ ...card, matched_at: at })),
      total: matches.meta.total,
    },
    unread_conversations: conversations.conversations
      .filter((c) => c.unread_count > 0)
      .slice(0, DASHBOARD_ITEMS),
    profile_views: viewers.total_count,
  };
  // The newest viewers come from the same read as their count.
  return { summary, viewers: viewers.viewers };
}

export type DashboardSummary = Awaited<ReturnType<typeof dashboardSummary>>["summary"];
