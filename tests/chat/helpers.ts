import { env } from "cloudflare:test";
import type { ChatMessageView } from "~/realtime/chat";
import type { Conversation } from "~/server/chat.server";
import { grantCredits } from "~/server/credits.server";
import { TestClient, type JsonResult } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { fetchWith } from "../helpers/worker";

export type Member = Awaited<ReturnType<typeof verifiedMember>>;

export interface MessagesPage {
  messages: ChatMessageView[];
  meta: { has_more: boolean; next_cursor: string | null };
}

/** Starts (or finds) the conversation of `from` with `to`, optionally sending a first message. */
export async function start(from: Member, to: Member, body: Record<string, unknown> = {}) {
  return from.client.json<{ conversation: Conversation; message: ChatMessageView | null }>(
    "POST",
    "/chat/conversations",
    { user_id: to.id, ...body },
  );
}

/** Two verified members and the conversation the first started with the second. */
export async function conversationPair() {
  const alice = await verifiedMember();
  const bob = await verifiedMember();
  const res = await start(alice, bob);
  if (res.status !== 201)
    throw new Error(`start failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { alice, bob, id: res.body.conversation.id };
}

export const like = (from: Member, to: Member) =>
  from.client.json("POST", "/my/likes", { user_id: to.id });

/** Two members who match, and the conversation they talk in. */
export async function matchedPair() {
  const alice = await verifiedMember();
  const bob = await verifiedMember();
  await like(alice, bob);
  await like(bob, alice);
  const started = await start(alice, bob, { message: "Hi Bob!" });
  if (started.status !== 201) throw new Error(`start failed: ${started.status}`);
  const id = started.body.conversation.id;
  await sent(bob.client, id, "Hi Alice");
  return { alice, bob, id };
}

type AttachmentAnswer = {
  message: ChatMessageView;
  errors?: Record<string, string[]>;
} & { message: ChatMessageView | string };

/** POST …/attachments as multipart. */
export async function sendFile(
  client: TestClient,
  conversationId: string,
  bytes: Uint8Array | null,
  fields: Record<string, string> = {},
  { name = "photo.jpg", type = "image/jpeg" } = {},
) {
  if (!client.csrfToken) await client.loadCsrfFromPage("/dashboard");
  const form = new FormData();
  if (bytes) form.append("file", new File([new Uint8Array(bytes)], name, { type }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await client.fetch(`/chat/conversations/${conversationId}/attachments`, {
    method: "POST",
    headers: { Accept: "application/json", "X-CSRF-Token": client.csrfToken },
    body: form,
  });
  const body = (await res.json()) as {
    message?: ChatMessageView | string;
    errors?: Record<string, string[]>;
  };
  return { status: res.status, body: body as AttachmentAnswer, headers: res.headers };
}

export async function send(
  client: TestClient,
  conversationId: string,
  message: string,
  extra: Record<string, unknown> = {},
): Promise<JsonResult<{ message: ChatMessageView; errors?: Record<string, string[]> }>> {
  return client.json("POST", `/chat/conversations/${conversationId}/messages`, {
    message,
    ...extra,
  });
}

/** Sends and fails the test unless the message was stored. */
export async function sent(client: TestClient, conversationId: string, message: string) {
  const res = await send(client, conversationId, message);
  if (res.status !== 201) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.message;
}

export async function page(client: TestClient, conversationId: string, query = "") {
  return client.json<MessagesPage>(
    "GET",
    `/chat/conversations/${conversationId}/messages${query ? `?${query}` : ""}`,
  );
}

export async function conversations(client: TestClient) {
  return client.json<{ conversations: Conversation[] }>("GET", "/chat/conversations");
}

export async function archived(client: TestClient) {
  return client.json<{ archived_conversations: Conversation[] }>(
    "GET",
    "/chat/conversations/archived",
  );
}

export async function block(by: Member, other: Member) {
  const res = await by.client.json("POST", "/my/block", { user_id: other.id, reason_type: "spam" });
  if (res.status !== 200) throw new Error(`block failed: ${res.status}`);
}

export async function giveCredits(userId: string, amount: number) {
  return grantCredits(env, {
    userId,
    amount,
    reason: "test_grant",
    reference: crypto.randomUUID(),
  });
}

/** Every message a conversation's room holds, deleted ones included (oldest first). */
export async function roomMessages(conversationId: string) {
  return env.CONVERSATION_ROOM.get(env.CONVERSATION_ROOM.idFromName(conversationId)).allMessages(
    conversationId,
  );
}

/** The credits ledger and totals of a member, straight from D1. */
export async function ledgerOf(userId: string) {
  const totals = await env.DB.prepare(
    "SELECT user_id, balance, lifetime_earned, lifetime_spent FROM user_credits WHERE user_id = ?1",
  )
    .bind(userId)
    .first<{ balance: number; lifetime_earned: number; lifetime_spent: number }>();
  const { results } = await env.DB.prepare(
    "SELECT amount, direction, reason, reference FROM credit_transactions WHERE user_id = ?1",
  )
    .bind(userId)
    .all<{ amount: number; direction: "in" | "out"; reason: string; reference: string }>();
  const sum = results.reduce((n, r) => n + (r.direction === "in" ? r.amount : -r.amount), 0);
  return { totals, rows: results, sum };
}

/**
 * A browser holding the same session as `client` whose requests reach the Worker with some rate
 * limits replaced (SELF always runs wrangler.toml's limits): for tests that send more messages
 * than a member may in a minute, or that need a tiny limit to reach.
 */
export function withLimits(client: TestClient, limits: Record<string, string>): TestClient {
  const copy = new LimitedClient(client.ip, { ...env.RATE_LIMITS, ...limits });
  for (const [k, v] of client.cookies) copy.cookies.set(k, v);
  copy.csrfToken = client.csrfToken;
  return copy;
}

class LimitedClient extends TestClient {
  constructor(
    ip: string,
    readonly limits: Record<string, string>,
  ) {
    super(ip);
  }

  override async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("Cookie", this.cookieHeader());
    return fetchWith({ RATE_LIMITS: this.limits }, path, { ...init, headers, ip: this.ip });
  }
}
