import type { ServerBuild } from "@remix-run/cloudflare";
// The Remix server build (`npm run build` writes it before wrangler bundles the Worker).
// @ts-ignore -- the file only exists after a build; its shape is Remix's ServerBuild.
import * as remixBuild from "../build/server/index.js";
import type { Env } from "~/server/env.server";
import { createApp } from "./app";

const app = createApp(remixBuild as unknown as ServerBuild);

export { ConversationRoom } from "../durable-objects/conversation/room";
export { MemberHub } from "../durable-objects/member-hub";
export { PresenceRoom } from "../durable-objects/presence/room";

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
