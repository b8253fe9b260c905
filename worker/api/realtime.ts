import { Hono } from "hono";
import { channelNameSchema, issueChannelToken } from "~/server/broadcasting.server";
import { memberHub } from "~/server/member-hub.server";
import { mintSocketTicket } from "~/server/socket-ticket.server";
import { presenceShardFor, recordHeartbeat } from "~/server/presence.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requireVerified } from "../middleware/auth";
import type { AppBindings } from "../types";
import { authorizeUpgrade, forwardUpgrade, refusedSocket } from "../realtime";

/**
 * The websocket endpoints of docs/realtime.md that are not a conversation's room, and their calls.
 */
export const realtimeApi = new Hono<AppBindings>();

/** The member's own channel: notifications and conversation updates on every page. */
realtimeApi.get("/ws/me", (c) => {
  const member = authorizeUpgrade(c);
  return memberHub(c.env, member.id).fetch(forwardUpgrade(c, member));
});

/**
 * The presence room: the member's shard of it (docs/decisions/011), told who the member is,
 * whether they hide their online status, who is on either side of a block with them, and their
 * contacts (the watch set until the page sends one): what their hub keeps of these (it reads D1
 * only when one of them changed), and whether their ticket still opens sockets.
 */
realtimeApi.get("/ws/presence", async (c) => {
  const member = authorizeUpgrade(c);
  const start = await memberHub(c.env, member.id).presenceStart(member.id, member.ticket);
  if (!start) return refusedSocket();
  const { shard, room } = presenceShardFor(c.env, member.id);
  const request = forwardUpgrade(c, member);
  request.headers.set("X-Presence-Shard", String(shard));
  request.headers.set("X-Member-Hidden", start.hidden ? "1" : "0");
  request.headers.set("X-Member-Blocks", JSON.stringify(start.blocks));
  request.headers.set("X-Member-Contacts", JSON.stringify(start.contacts));
  return room.fetch(request);
});

/** docs/domain.md "Presence": keeps last_seen_at fresh where the presence shards do not. */
realtimeApi.post("/me/heartbeat", requireVerified, async (c) => {
  const { user } = currentUser(c);
  await recordHeartbeat(c.env, user.id);
  return c.body(null, 204);
});

/**
 * A fresh socket ticket for the member's pages (app/realtime/ticket.ts): asked for before the old
 * one expires, or after a socket refused it.
 */
realtimeApi.post("/my/socket-ticket", requireVerified, async (c) => {
  const { session } = currentUser(c);
  const { ticket, expiresAt } = await mintSocketTicket(c.env, session);
  return c.json({ ticket, expires_at: expiresAt });
});

/** A short-lived token for one channel the member may join (`?auth=` on its socket). */
realtimeApi.post("/broadcasting/auth", requireVerified, async (c) => {
  const { session } = currentUser(c);
  const { channel_name } = parseInput(channelNameSchema, await readBody(c.req.raw));
  return c.json({ auth: await issueChannelToken(c.env, session, channel_name) });
});
