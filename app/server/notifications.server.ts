import { and, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import {
  DEFAULT_CHANNELS,
  NOTIFICATION_TYPES,
  type AccountNoticeType,
  type NotificationPreferences,
  type NotificationSettings,
  type NotificationSettingsChange,
  type NotificationType,
  type NotificationView,
} from "~/schemas/notifications";
import { newId } from "./crypto.server";
import { notificationPreferences, notifications, notificationSettings } from "./db/notifications";
import { getDb, nowIso } from "./db.server";
import type { Env } from "./env.server";
import { notFound } from "./errors.server";
import { notifyAway, publishToMember, pushSettingsChanged } from "./member-channel.server";
import { memberCards, type MemberCard } from "./members.server";
import { statement } from "./sql.server";
import { isActiveMember, isBlockedEitherWay, neitherBlocked } from "./visibility.server";

/**
 * Notifications (docs/api.md "Notifications"): stored per member, newest first, and pushed at once
 * to the member's open pages through their own channel (`/ws/me`). A member switches each kind off
 * in settings; nothing crosses a block, and a notification whose member has since been blocked
 * (either way) disappears from the list and the unread count.
 *
 * Domain modules call `notify` after they stored their own change:
 * - likes: `{to: liked, type: "like", actorId: liker}`; a match: `{type: "match"}` to each member,
 *   the other one as actor;
 * - chat: `{type: "message"}` for the first unread message of a conversation, `{type: "gift"}`
 *   for a gift (data: conversation_id, message_id, preview, gift);
 * - profile views: `{type: "profile_view"}`, at most once per viewer and day.
 * The acting member's card is added as `data.actor` when a notification is read or pushed.
 * Account notices (a moderator's decision on the member's verification or appeal) are written by
 * `notifyAccount`, outside the member's switches (account-notices.server.ts).
 */

export const NOTIFICATIONS_PER_PAGE = 20;
export const NOTIFICATIONS_MAX_PER_PAGE = 50;

export interface NotifyInput {
  to: string;
  type: NotificationType;
  /** The member whose action this is; nothing is sent across a block, nor to oneself. */
  actorId?: string | null;
  data?: Record<string, unknown>;
}

/**
 * Rows the member may see: their own, and none whose actor is on either side of a block or no
 * longer active (the rule of visibility.server.ts).
 */
export function visibleRows(userId: string) {
  return and(
    eq(notifications.userId, userId),
    or(
      isNull(notifications.actorId),
      and(neitherBlocked(userId, notifications.actorId), isActiveMember(notifications.actorId)),
    ),
  );
}

/** The member's channels for one kind (the defaults where they changed nothing). */
async function channelsFor(env: Env, userId: string, type: NotificationType) {
  const row = await getDb(env.DB)
    .select({
      in_app: notificationPreferences.enabled,
      push: notificationPreferences.push,
      email: notificationPreferences.email,
    })
    .from(notificationPreferences)
    .where(and(eq(notificationPreferences.userId, userId), eq(notificationPreferences.type, type)))
    .get();
  const defaults = DEFAULT_CHANNELS[type];
  return {
    in_app: row?.in_app ?? defaults.in_app,
    push: row?.push ?? defaults.push,
    email: row?.email ?? defaults.email,
  };
}

/** What the bell and the notifications page show: visible, and of a kind on in the app. */
function onTheBell(userId: string) {
  return and(visibleRows(userId), eq(notifications.inApp, true));
}

/**
 * The member's unread notifications (`unread_count`), and the rows they make on the notifications
 * page (`unread_groups`, what the bell shows: docs/decisions/028): one per conversation's
 * messages, one for all likes, one for all profile views, one per match and per gift, as
 * app/lib/notification-groups.ts groups them.
 */
export async function unreadCounts(
  env: Env,
  userId: string,
): Promise<{ unread_count: number; unread_groups: number }> {
  const row = await getDb(env.DB)
    .select({
      n: sql<number>`count(*)`,
      groups: sql<number>`count(DISTINCT CASE
        WHEN ${notifications.type} = 'message'
          AND json_extract(${notifications.data}, '$.conversation_id') IS NOT NULL
          THEN 'conversation:' || json_extract(${notifications.data}, '$.conversation_id')
        WHEN ${notifications.type} IN ('like', 'profile_view') THEN ${notifications.type}
        ELSE 'one:' || ${notifications.id} END)`,
    })
    .from(notifications)
    .where(and(onTheBell(userId), isNull(notifications.readAt)))
    .get();
  return { unread_count: row?.n ?? 0, unread_groups: row?.groups ?? 0 };
}

type NotificationRow = typeof notifications.$inferSelect;

/**
 * Rows as docs/api.md "Notifications" shows them, each with its actor's current card (`data.actor`,
 * or null).
 */
async function present(env: Env, rows: NotificationRow[]): Promise<NotificationView[]> {
  const actorIds = [...new Set(rows.flatMap((r) => (r.actorId ? [r.actorId] : [])))];
  const cards = new Map<string, MemberCard>(
    (await memberCards(env, actorIds)).map((card) => [card.id, card]),
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    data: { ...r.data, actor: r.actorId ? (cards.get(r.actorId) ?? null) : null },
    read_at: r.readAt,
    created_at: r.createdAt,
  }));
}

/** A notification's row (its seq is given when it is written: notificationStatement). */
function notificationRow(
  input: NotifyInput | AccountNoticeInput,
  id = newId(),
  inApp = true,
): NotificationRow {
  return {
    id,
    userId: input.to,
    actorId: "actorId" in input ? (input.actorId ?? null) : null,
    type: input.type,
    data: input.data ?? {},
    readAt: null,
    createdAt: nowIso(),
    seq: 0,
    inApp,
  };
}

/** Writes a notification's row, next in its member's order. */
function notificationStatement(env: Env, row: NotificationRow) {
  return statement(
    env.DB,
    sql`INSERT INTO notifications (id, user_id, actor_id, type, data, read_at, created_at, seq, in_app)
      VALUES (${row.id}, ${row.userId}, ${row.actorId}, ${row.type}, ${JSON.stringify(row.data)}, NULL, ${row.createdAt},
        (SELECT coalesce(max(seq), 0) + 1 FROM notifications WHERE user_id = ${row.userId}), ${row.inApp ? 1 : 0})`,
  );
}

/** Pushes a stored notification to its member's open pages, with their unread count. */
async function announce(env: Env, row: NotificationRow): Promise<NotificationView> {
  const [[notification], unread] = await Promise.all([
    present(env, [row]),
    unreadCounts(env, row.userId),
  ]);
  await publishToMember(env, row.userId, {
    type: "notification",
    notification: notification!,
    ...unread,
  });
  return notification!;
}

/**
 * Stores a notification for a member and pushes it to their open pages. Does nothing (null) when
 * the member switched that kind off on every channel, when it is their own action, or across a
 * block. A kind off in the app but on for push or email is stored off the bell (`in_app` false),
 * for the digest, and heard by the member's hub while they are away (null: no page shows it).
 */
export async function notify(env: Env, input: NotifyInput): Promise<NotificationView | null> {
  if (input.actorId && input.actorId === input.to) return null;
  const [channels, blocked] = await Promise.all([
    channelsFor(env, input.to, input.type),
    input.actorId ? isBlockedEitherWay(env, input.to, input.actorId) : Promise.resolve(false),
  ]);
  // A message's push and digest line come from its room (away.server.ts messageEvent), never
  // from this row: off the bell, a message kind needs no row.
  const heardAway = input.type !== "message" && (channels.push || channels.email);
  if (blocked || !(channels.in_app || heardAway)) return null;
  const row = notificationRow(input, newId(), channels.in_app);
  await notificationStatement(env, row).run();
  if (row.inApp) return announce(env, row);
  const [notification] = await present(env, [row]);
  await notifyAway(env, row.userId, notification!);
  return null;
}

/** An account notice for a member (docs/decisions/049): what a moderator decided about them. */
export interface AccountNoticeInput {
  to: string;
  type: AccountNoticeType;
  data: Record<string, unknown>;
}

/**
 * Stores an account notice and pushes it to the member's open pages. No switch turns it off and
 * it has no actor (a moderator's decision names no moderator), so it always reaches the bell;
 * the member's hub hears it like any notification, and pushes nothing for it (away.server.ts
 * `notificationEvent`): its email tells a member who is away.
 */
export async function notifyAccount(
  env: Env,
  input: AccountNoticeInput,
): Promise<NotificationView> {
  const row = notificationRow(input);
  await notificationStatement(env, row).run();
  return announce(env, row);
}

/**
 * A notification written in the batch of the change it tells of (a gift's spend): `write` when
 * the member wants this kind (null: nothing to write), and `announce` once that change is
 * complete, which pushes it: at once when `write` went in this attempt's batch (`fresh`), else
 * when an earlier attempt of the same change stored it. Its id is the caller's, so that a later
 * attempt finds it and an undoing removes it (notificationRemoval). The caller checked blocks.
 */
export async function pendingNotification(env: Env, input: NotifyInput, id: string) {
  const enabled = (await channelsFor(env, input.to, input.type)).in_app;
  const row = notificationRow(input, id);
  return {
    write: enabled ? notificationStatement(env, row) : null,
    announce: async (fresh: boolean): Promise<NotificationView | null> => {
      if (!enabled) return null;
      if (fresh) return announce(env, row);
      const stored = await getDb(env.DB)
        .select({ createdAt: notifications.createdAt })
        .from(notifications)
        .where(and(eq(notifications.id, id), eq(notifications.userId, input.to)))
        .get();
      return stored ? announce(env, { ...row, createdAt: stored.createdAt }) : null;
    },
  };
}

/** Removes a notification written with a change that was undone (notification `id`). */
export const notificationRemoval = (env: Env, id: string) =>
  statement(env.DB, sql`DELETE FROM notifications WHERE id = ${id}`);

/** GET /notifications: a page of the member's notifications, newest first, and the unread count. */
export async function listNotifications(
  env: Env,
  userId: string,
  { page = 1, perPage = NOTIFICATIONS_PER_PAGE }: { page?: number; perPage?: number } = {},
) {
  const rows = await getDb(env.DB)
    .select()
    .from(notifications)
    .where(onTheBell(userId))
    .orderBy(desc(notifications.seq), desc(notifications.id))
    .limit(perPage + 1)
    .offset((page - 1) * perPage)
    .all();
  const [list, unread] = await Promise.all([
    present(env, rows.slice(0, perPage)),
    unreadCounts(env, userId),
  ]);
  return {
    notifications: list,
    ...unread,
    meta: { page, per_page: perPage, has_more: rows.length > perPage },
  };
}

/** Tells the member's other open pages that notifications were read (their badges follow). */
async function publishRead(env: Env, userId: string, ids: string[] | null) {
  await publishToMember(env, userId, {
    type: "notifications_read",
    ids,
    ...(await unreadCounts(env, userId)),
  });
}

/** POST /notifications/{id}/read: 404 unless it is the member's own (and visible to them). */
export async function markNotificationRead(env: Env, userId: string, id: string) {
  const db = getDb(env.DB);
  const row = await db
    .select()
    .from(notifications)
    .where(and(onTheBell(userId), eq(notifications.id, id)))
    .get();
  if (!row) throw notFound("Notification not found.");
  if (!row.readAt) {
    row.readAt = nowIso();
    await db
      .update(notifications)
      .set({ readAt: row.readAt })
      .where(and(eq(notifications.id, id), isNull(notifications.readAt)));
    await publishRead(env, userId, [id]);
  }
  const [[notification], unread] = await Promise.all([
    present(env, [row]),
    unreadCounts(env, userId),
  ]);
  return { notification: notification!, ...unread };
}

/**
 * Marks several of the member's notifications read at once (a grouped row of the notifications
 * page: one conversation's messages, the likes). Ids that are not the member's, or not visible to
 * them, are ignored: nothing tells whether they exist.
 */
export async function markNotificationsRead(
  env: Env,
  userId: string,
  ids: string[],
  group?: string,
) {
  const now = nowIso();
  const changed = await getDb(env.DB)
    .update(notifications)
    .set({ readAt: now })
    .where(
      and(
        eq(notifications.userId, userId),
        eq(notifications.inApp, true),
        isNull(notifications.readAt),
        group ? or(inArray(notifications.id, ids), inGroup(group)) : inArray(notifications.id, ids),
      ),
    )
    .returning({ id: notifications.id });
  if (changed.length > 0)
    await publishRead(
      env,
      userId,
      changed.map((r) => r.id),
    );
  return { ids: changed.map((r) => r.id), ...(await unreadCounts(env, userId)) };
}

/** The notifications of one row of the page, by its key (likes, profile views, a conversation). */
function inGroup(group: string) {
  if (group === "like" || group === "profile_view") return eq(notifications.type, group);
  const conversationId = group.slice("conversation:".length);
  return and(
    eq(notifications.type, "message"),
    sql`json_extract(${notifications.data}, '$.conversation_id') = ${conversationId}`,
  );
}

/** POST /notifications/read-all. */
export async function markAllNotificationsRead(env: Env, userId: string) {
  const result = await getDb(env.DB)
    .update(notifications)
    .set({ readAt: nowIso() })
    .where(
      and(
        eq(notifications.userId, userId),
        eq(notifications.inApp, true),
        isNull(notifications.readAt),
      ),
    )
    .run();
  if (result.meta.changes > 0) await publishRead(env, userId, null);
  return unreadCounts(env, userId);
}

/** Every kind's channels (the defaults where the member changed nothing), quiet hours, preview. */
export async function getNotificationPreferences(
  env: Env,
  userId: string,
): Promise<NotificationSettings> {
  const db = getDb(env.DB);
  const [rows, settings] = await db.batch([
    db
      .select({
        type: notificationPreferences.type,
        in_app: notificationPreferences.enabled,
        push: notificationPreferences.push,
        email: notificationPreferences.email,
      })
      .from(notificationPreferences)
      .where(eq(notificationPreferences.userId, userId)),
    db.select().from(notificationSettings).where(eq(notificationSettings.userId, userId)),
  ]);
  const stored = new Map(rows.map((r) => [r.type, r]));
  const preferences = Object.fromEntries(
    NOTIFICATION_TYPES.map((type) => {
      const row = stored.get(type);
      const defaults = DEFAULT_CHANNELS[type];
      return [
        type,
        {
          in_app: row?.in_app ?? defaults.in_app,
          push: row?.push ?? defaults.push,
          email: row?.email ?? defaults.email,
        },
      ];
    }),
  ) as NotificationPreferences;
  const own = settings[0];
  return {
    preferences,
    quiet_hours:
      own?.quietStart && own.quietEnd && own.timeZone
        ? { start: own.quietStart, end: own.quietEnd, time_zone: own.timeZone }
        : null,
    preview: own?.preview ?? false,
  };
}

/**
 * Merges a change into the member's settings (the channels, quiet hours and preview not named keep
 * their value) and returns them all. One batch: the kinds' rows, then the member's settings row.
 */
export async function setNotificationPreferences(
  env: Env,
  userId: string,
  change: NotificationSettingsChange,
): Promise<NotificationSettings> {
  const current = await getNotificationPreferences(env, userId);
  const merged: NotificationSettings = {
    preferences: Object.fromEntries(
      NOTIFICATION_TYPES.map((type) => [
        type,
        { ...current.preferences[type], ...change.preferences?.[type] },
      ]),
    ) as NotificationPreferences,
    quiet_hours: change.quiet_hours === undefined ? current.quiet_hours : change.quiet_hours,
    preview: change.preview ?? current.preview,
  };
  const db = getDb(env.DB);
  const writes = [];
  const rows = NOTIFICATION_TYPES.flatMap((type) => {
    if (!change.preferences?.[type]) return [];
    const next = merged.preferences[type];
    return [{ userId, type, enabled: next.in_app, push: next.push, email: next.email }];
  });
  if (rows.length > 0) {
    writes.push(
      db
        .insert(notificationPreferences)
        .values(rows)
        .onConflictDoUpdate({
          target: [notificationPreferences.userId, notificationPreferences.type],
          set: {
            enabled: sql`excluded.enabled`,
            push: sql`excluded.push`,
            email: sql`excluded.email`,
          },
        }),
    );
  }
  if (change.quiet_hours !== undefined || change.preview !== undefined) {
    const quiet = merged.quiet_hours;
    const values = {
      quietStart: quiet?.start ?? null,
      quietEnd: quiet?.end ?? null,
      timeZone: quiet?.time_zone ?? null,
      preview: merged.preview,
    };
    writes.push(
      db
        .insert(notificationSettings)
        .values({ userId, ...values })
        .onConflictDoUpdate({ target: notificationSettings.userId, set: values }),
    );
  }
  const [first, ...rest] = writes;
  if (first) {
    await db.batch([first, ...rest]);
    await pushSettingsChanged(env, userId);
  }
  return merged;
}
