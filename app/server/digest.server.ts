import { and, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { displayName } from "~/lib/members";
import {
  NOTIFICATION_TYPES,
  type NotificationSettings,
  type NotificationType,
} from "~/schemas/notifications";
import { hmacSign, hmacVerify } from "./crypto.server";
import { notifications } from "./db/notifications";
import { getDb, schema } from "./db.server";
import { digestEmail, type DigestLine } from "./emails.server";
import { secondsSettingMs, type Env } from "./env.server";
import type { Email } from "./mail.server";
import { memberCards } from "./members.server";
import { setNotificationPreferences, visibleRows } from "./notifications.server";

/**
 * The email digest of a member who is away (docs/api.md "Away from the app", docs/decisions/034):
 * when something stays unseen for AWAY_EMAIL_DELAY_SECONDS and the member has not been back, one
 * email of their unread conversations, new matches and likes (the kinds they keep on for email),
 * at most one per EMAIL_DIGEST_INTERVAL_SECONDS. The member's hub decides when (it knows whether
 * they came back); this module writes it. Every digest carries a one-click unsubscribe (RFC 8058)
 * whose signed link works without signing in.
 */

export const DEFAULT_AWAY_EMAIL_DELAY_SECONDS = 3600;
export const DEFAULT_EMAIL_DIGEST_INTERVAL_SECONDS = 86_400;

/** AWAY_EMAIL_DELAY_SECONDS in milliseconds: how long something stays unseen before a digest. */
export const awayEmailDelayMs = (env: Pick<Env, "AWAY_EMAIL_DELAY_SECONDS">) =>
  secondsSettingMs(env.AWAY_EMAIL_DELAY_SECONDS, DEFAULT_AWAY_EMAIL_DELAY_SECONDS);

/** EMAIL_DIGEST_INTERVAL_SECONDS in milliseconds: at most one digest per this long. */
export const digestIntervalMs = (env: Pick<Env, "EMAIL_DIGEST_INTERVAL_SECONDS">) =>
  secondsSettingMs(env.EMAIL_DIGEST_INTERVAL_SECONDS, DEFAULT_EMAIL_DIGEST_INTERVAL_SECONDS);

/** The kinds a digest can tell of, in the order it tells them. */
const DIGEST_KINDS = ["message", "match", "like", "gift", "profile_view"] as const;

/** Whether the member keeps any kind on for email (else no digest is ever due). */
export const digestWanted = (settings: NotificationSettings) =>
  NOTIFICATION_TYPES.some((type) => settings.preferences[type].email);

const UNSUBSCRIBE_PURPOSE = "email-digest-unsubscribe:";

/** The signed token of a member's unsubscribe link: their id and an HMAC of it under APP_KEY. */
export async function unsubscribeToken(env: Env, userId: string): Promise<string> {
  return `${userId}.${await hmacSign(env.APP_KEY, UNSUBSCRIBE_PURPOSE + userId)}`;
}

/** The member a token was made for, or null when it is not one this app signed. */
export async function memberOfUnsubscribeToken(env: Env, token: string): Promise<string | null> {
  const dot = token.lastIndexOf(".");
  if (dot <= 0) return null;
  const userId = token.slice(0, dot);
  const mac = token.slice(dot + 1);
  return (await hmacVerify(env.APP_KEY, UNSUBSCRIBE_PURPOSE + userId, mac)) ? userId : null;
}

export const unsubscribeUrl = async (env: Env, origin: string, userId: string) =>
  `${origin}/email/unsubscribe?token=${encodeURIComponent(await unsubscribeToken(env, userId))}`;

/**
 * The member asked for no more digests (the link's page, or a mail client's one-click POST):
 * every kind's email switch goes off; the other channels stay as they are.
 */
export async function unsubscribeFromDigest(env: Env, userId: string): Promise<void> {
  const exists = await getDb(env.DB)
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .get();
  if (!exists) return;
  await setNotificationPreferences(env, userId, {
    preferences: Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, { email: false }])),
  });
}

/** A conversation with unread messages, as the member's hub lists it. */
export interface UnreadConversation {
  conversation_id: string;
  other_id: string;
  unread_count: number;
}

/** How many of the member's notifications of each kind arrived since `since`, and from whom. */
async function newSince(env: Env, userId: string, kinds: NotificationType[], since: string) {
  if (kinds.length === 0) return [];
  return getDb(env.DB)
    .select({ type: notifications.type, actorId: notifications.actorId })
    .from(notifications)
    .where(
      and(
        visibleRows(userId),
        isNull(notifications.readAt),
        gt(notifications.createdAt, since),
        inArray(notifications.type, kinds),
      ),
    )
    .orderBy(desc(notifications.seq))
    .limit(200);
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The digest for a member, or null when there is nothing to tell (every kind off for email, all of
 * it read, or a member who cannot receive it: unverified email, suspended, gone). Reads D1: it
 * runs at most once per interval per member.
 */
export async function composeDigest(
  env: Env,
  input: {
    userId: string;
    origin: string;
    settings: NotificationSettings;
    conversations: UnreadConversation[];
    /** What arrived after this (ISO time) is new. */
    since: string;
  },
): Promise<Email | null> {
  const { userId, origin, settings } = input;
  const member = await getDb(env.DB)
    .select({
      email: schema.users.email,
      verified: schema.users.emailVerifiedAt,
      status: schema.users.status,
      username: schema.users.username,
      firstName: schema.profiles.firstName,
    })
    .from(schema.users)
    .leftJoin(schema.profiles, eq(schema.profiles.userId, schema.users.id))
    .where(eq(schema.users.id, userId))
    .get();
  if (!member?.verified || member.status !== "active") return null;

  const on = (kind: NotificationType) => settings.preferences[kind].email;
  const conversations = on("message") ? input.conversations.filter((c) => c.unread_count > 0) : [];
  const kinds = DIGEST_KINDS.filter((k) => k !== "message" && on(k));
  const rows = await newSince(env, userId, kinds, input.since);
  const cards = new Map(
    (
      await memberCards(env, [
        ...conversations.map((c) => c.other_id),
        ...rows.flatMap((r) => (r.actorId ? [r.actorId] : [])),
      ])
    ).map((card) => [card.id, displayName(card)]),
  );

  const lines: DigestLine[] = [];
  const named = conversations.filter((c) => cards.has(c.other_id));
  if (named.length > 0) {
    const messages = named.reduce((n, c) => n + c.unread_count, 0);
    lines.push({
      text: `${plural(messages, "unread message", "unread messages")} from ${names(named.map((c) => cards.get(c.other_id)!))}`,
      url: `${origin}/chat`,
    });
  }
  for (const kind of kinds) {
    const actors = [
      ...new Set(rows.filter((r) => r.type === kind && r.actorId).map((r) => r.actorId!)),
    ].filter((id) => cards.has(id));
    if (actors.length === 0) continue;
    const who = names(actors.map((id) => cards.get(id)!));
    lines.push(kindLine(kind, who, actors.length, origin));
  }
  if (lines.length === 0) return null;
  return digestEmail({
    to: member.email,
    name: member.firstName ?? member.username,
    lines,
    openUrl: `${origin}/dashboard`,
    settingsUrl: `${origin}/settings/notifications`,
    unsubscribeUrl: await unsubscribeUrl(env, origin, userId),
  });
}

function kindLine(kind: NotificationType, who: string, n: number, origin: string): DigestLine {
  switch (kind) {
    case "match":
      return {
        text: `${plural(n, "new match", "new matches")}: ${who}`,
        url: `${origin}/my/matches`,
      };
    case "like":
      return { text: `${who} liked you`, url: `${origin}/my/likes` };
    case "gift":
      return { text: `${who} sent you a gift`, url: `${origin}/chat` };
    case "profile_view":
      return { text: `${who} viewed your profile`, url: `${origin}/my/profile` };
    case "message":
      return { text: who, url: `${origin}/chat` };
  }
}

/** "Maya", "Maya and Tom", "Maya, Tom and 3 others". */
function names(list: string[]): string {
  if (list.length <= 2) return list.join(" and ");
  const others = list.length - 2;
  return `${list[0]}, ${list[1]} and ${plural(others, "other", "others")}`;
}
