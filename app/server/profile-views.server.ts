import { and, countDistinct, desc, eq, max, sql } from "drizzle-orm";
import { isPrefetch } from "./context.server";
import { getDb, nowIso, schema } from "./db.server";
import type { Env } from "./env.server";
import { memberCards, viewMember, type MemberCard, type MemberProfile } from "./members.server";
import { notify } from "./notifications.server";
import { memberPerks } from "./subscriptions.server";
import { visibleTo } from "./visibility.server";

export const VIEWERS_PER_PAGE = 20;
export const VIEWERS_MAX_PER_PAGE = 50;

/**
 * Records that `viewerId` looked at `viewedId`'s profile: one row per viewer, member and UTC day,
 * whose time moves forward on a repeat view. Looking at yourself records nothing, and neither does
 * a subscriber whose plan browses incognito. The first view
 * of a day notifies the member viewed (a `profile_view` notification).
 */
export async function recordProfileView(
  env: Env,
  viewerId: string,
  viewedId: string,
  now = Date.now(),
): Promise<void> {
  if (viewerId === viewedId) return;
  // Incognito browsing, a subscription perk: the visit leaves no trace.
  if ((await memberPerks(env, viewerId, now)).incognito) return;
  const viewedAt = nowIso(now);
  const day = viewedAt.slice(0, 10);
  const db = getDb(env.DB);
  const v = schema.profileViews;
  const inserted = await db
    .insert(v)
    .values({ viewerId, viewedId, day, viewedAt })
    .onConflictDoNothing()
    .returning({ day: v.day });
  if (inserted.length > 0) {
    await notify(env, { to: viewedId, type: "profile_view", actorId: viewerId });
    return;
  }
  await db
    .update(v)
    .set({ viewedAt: sql`max(${v.viewedAt}, ${viewedAt})` })
    .where(and(eq(v.viewedId, viewedId), eq(v.viewerId, viewerId), eq(v.day, day)));
}

/**
 * Whether loading a profile counts as a view (docs/decisions/009): only a visit the member made
 * inside the app does. A link posted on another site must not tell its author who followed it
 * (the session cookie is SameSite=Lax, so such a top-level GET arrives signed in).
 * - A browser's speculative fetch (link prefetch on hover) is not a visit.
 * - With Fetch Metadata (every current browser): only `Sec-Fetch-Site: same-origin`. `none` (an
 *   address typed, a bookmark, a link opened from a mail or chat app), `same-site` and
 *   `cross-site` record nothing.
 * - Without it (older browsers, API clients): a Referer of this origin, or a JSON request, which a
 *   page of another site cannot send with the member's cookie.
 */
export function isInAppVisit(request: Request, wantsJson: boolean): boolean {
  if (isPrefetch(request)) return false;
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null) return site === "same-origin";
  if (wantsJson) return true;
  const referer = request.headers.get("Referer");
  if (!referer) return false;
  try {
    return new URL(referer).origin === new URL(request.url).origin;
  } catch {
    return false;
  }
}

/**
 * A member opens another member's profile: the profile as `viewerId` sees it (404 when unknown or
 * hidden from them), and, when `recordView` (an in-app visit), the view is recorded.
 */
export async function visitMember(
  env: Env,
  viewerId: string,
  username: string,
  { recordView, now = Date.now() }: { recordView: boolean; now?: number },
): Promise<MemberProfile> {
  const member = await viewMember(env, viewerId, username, now);
  if (recordView) await recordProfileView(env, viewerId, member.id, now);
  return member;
}

export interface ProfileViewers {
  viewers: (MemberCard & { viewed_at: string })[];
  total_count: number;
  meta: { page: number; per_page: number; has_more: boolean };
}

/**
 * GET /my/profile-viewers: the members who viewed `memberId`, each once at their latest view,
 * newest first, one page at a time; total_count counts distinct viewers the member can see.
 */
export async function listProfileViewers(
  env: Env,
  memberId: string,
  { page = 1, perPage = VIEWERS_PER_PAGE }: { page?: number; perPage?: number } = {},
  now = Date.now(),
): Promise<ProfileViewers> {
  const db = getDb(env.DB);
  const v = schema.profileViews;
  const where = and(eq(v.viewedId, memberId), visibleTo(memberId));
  const latest = max(v.viewedAt);
  const [rows, totals] = await Promise.all([
    db
      .select({ viewerId: v.viewerId, viewedAt: latest })
      .from(v)
      .innerJoin(schema.users, eq(schema.users.id, v.viewerId))
      .where(where)
      .groupBy(v.viewerId)
      .orderBy(desc(latest), v.viewerId)
      .limit(perPage + 1)
      .offset((page - 1) * perPage)
      .all(),
    db
      .select({ total: countDistinct(v.viewerId) })
      .from(v)
      .innerJoin(schema.users, eq(schema.users.id, v.viewerId))
      .where(where)
      .get(),
  ]);
  const pageRows = rows.slice(0, perPage);
  const cards = await memberCards(
    env,
    pageRows.map((r) => r.viewerId),
    now,
  );
  const viewedAt = new Map(pageRows.map((r) => [r.viewerId, r.viewedAt ?? ""]));
  return {
    viewers: cards.map((card) => ({ ...card, viewed_at: viewedAt.get(card.id) ?? "" })),
    total_count: totals?.total ?? 0,
    meta: { page, per_page: perPage, has_more: rows.length > perPage },
  };
}
