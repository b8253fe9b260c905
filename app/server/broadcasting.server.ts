import { z } from "zod";
import { authorizeConversationSocket } from "./chat.server";
import { fromBase64Url, hmacSign, hmacVerify, toBase64Url } from "./crypto.server";
import type { Env } from "./env.server";
import { forbidden } from "./errors.server";

/**
 * POST /broadcasting/auth (docs/realtime.md "Authentication"): a short-lived token, signed with
 * APP_KEY, that lets its holder open one channel's socket as one member without the session cookie
 * (`?auth=`).
 *
 * Channels: `presence-global` (the presence room, any verified member), `private-member.{id}` (a
 * member's own channel, that member only) and `private-chat.{conversationId}` (a conversation's
 * room, its members only while neither blocks the other).
 */
export const BROADCAST_TOKEN_TTL_MS = 5 * 60_000;

export const channelNameSchema = z.object({
  channel_name: z
    .string({ error: "The channel name is required." })
    .regex(
      /^(presence-global|private-member\.[A-Za-z0-9_-]{1,64}|private-chat\.[A-Za-z0-9_-]{1,64})$/,
      "Unknown channel.",
    ),
});

interface TokenClaims {
  sub: string;
  /** The session that minted the token: it opens nothing once that session has ended. */
  sid: string;
  ch: string;
  exp: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The HMAC message of a token: its own prefix, so no other signature of APP_KEY can pass as one. */
const signed = (payload: string) => `broadcast:v1:${payload}`;

/** Checks that `memberId` may join the channel (403 otherwise; 404 for an unknown conversation). */
export async function authorizeChannel(env: Env, memberId: string, channel: string) {
  if (channel === "presence-global") return;
  if (channel.startsWith("private-member.")) {
    if (channel.slice("private-member.".length) !== memberId) throw forbidden();
    return;
  }
  if (channel.startsWith("private-chat.")) {
    await authorizeConversationSocket(env, memberId, channel.slice("private-chat.".length));
    return;
  }
  throw forbidden();
}

export async function issueChannelToken(
  env: Env,
  session: { userId: string; idHash: string },
  channel: string,
  now = Date.now(),
): Promise<string> {
  const memberId = session.userId;
  await authorizeChannel(env, memberId, channel);
  const claims: TokenClaims = {
    sub: memberId,
    sid: session.idHash,
    ch: channel,
    exp: now + BROADCAST_TOKEN_TTL_MS,
  };
  const payload = toBase64Url(encoder.encode(JSON.stringify(claims)));
  return `${payload}.${await hmacSign(env.APP_KEY, signed(payload))}`;
}

/** A genuine, unexpired token's member and channel, or null. */
export async function verifyChannelToken(
  env: Env,
  token: string,
  now = Date.now(),
): Promise<{ memberId: string; sessionId: string; channel: string } | null> {
  const [payload, mac, extra] = token.split(".");
  if (!payload || !mac || extra !== undefined || token.length > 1024) return null;
  if (!(await hmacVerify(env.APP_KEY, signed(payload), mac))) return null;
  let claims: Partial<TokenClaims>;
  try {
    claims = JSON.parse(decoder.decode(fromBase64Url(payload))) as Partial<TokenClaims>;
  } catch {
    return null;
  }
  if (typeof claims.sub !== "string" || typeof claims.ch !== "string") return null;
  if (typeof claims.sid !== "string") return null;
  if (typeof claims.exp !== "number" || claims.exp <= now) return null;
  return { memberId: claims.sub, sessionId: claims.sid, channel: claims.ch };
}

/** The channel a websocket path opens (the token must name it), or null for other paths. */
export function channelForPath(path: string, memberId: string): string | null {
  if (path === "/ws/presence") return "presence-global";
  if (path === "/ws/me") return `private-member.${memberId}`;
  const chat = /^\/ws\/chat\/([A-Za-z0-9_-]{1,64})$/.exec(path);
  return chat ? `private-chat.${chat[1]}` : null;
}
