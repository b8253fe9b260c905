import { Hono } from "hono";
import { channelNameSchema, issueChannelToken } from "~/server/broadcasting.server";
import { presenceConnectInfo, presenceShardFor, recordHeartbeat } from "~/server/presence.server";
import { parseInput, readBody } from "~/server/validation.server";
import { currentUser, requireVerified } from "../middleware/auth";
import type { AppBindings } from "../types";
import { authorizeUpgrade, forwardUpgrade } from "../realtime";

/**
 * The websocket endpoints of docs/realtime.md that are not a conversation's room, and their calls.
 */
export const realtimeApi = new Hono<AppBindings>();

/** The member's own channel: notifications and conversation updates on every page. */
realtimeApi.get("/ws/me", (c) => {
  const user = authorizeUpgrade(c);
  const hub = c.env.MEMBER_HUB.get(c.env.MEMBER_HUB.idFromName(user.id));
  return hub.fetch(forwardUpgrade(c, user));
});

/**
 * The presence room: the member's shard of it (docs/decisions/011), told who the member is,
 * whether they hide their online status, who is on either side of a block with them, and their
 * contacts (the watch set until the page sends one).
 */
realtimeApi.get("/ws/presence", async (c) => {
  const user = authorizeUpgrade(c);
  const { shard, room } = presenceShardFor(c.env, user.id);
  const { blocks, contacts } = await presenceConnectInfo(c.env, user.id);
  const request = forwardUpgrade(c, user);
  request.headers.set("X-Presence-Shard", String(shard));
  request.headers.set("X-Member-Blocks", JSON.stringify(blocks));
  request.headers.set("X-Member-Contacts", JSON.stringify(contacts));
  return room.fetch(request);
});

/** docs/domain.md "Presence": keeps last_seen_at fresh where the presence shards do not. */
realtimeApi.post("/me/heartbeat", requireVerified, async (c) => {
  const { user } = currentUser(c);
  await recordHeartbeat(c.env, user.id);
  return c.body(null, 204);
});

/** A short-lived token for one channel the member may join (`?auth=` on its socket). */
realtimeApi.post("/broadcasting/auth", requireVerified, async (c) => {
  const { session } = currentUser(c);
  const { channel_name } = parseInput(channelNameSchema, await readBody(c.req.raw));
  return c.json({ auth: await issueChannelToken(c.env, session, channel_name) });
});
