import type { ServerBuild } from "@remix-run/cloudflare";
import * as Sentry from "@sentry/cloudflare";
// The Remix server build (`npm run build` writes it before wrangler bundles the Worker).
// @ts-ignore -- the file only exists after a build; its shape is Remix's ServerBuild.
import * as remixBuild from "../build/server/index.js";
import type { Env } from "~/server/env.server";
import { reportFailuresToTracker, trackerOptions } from "~/server/error-tracker.server";
import { createApp } from "./app";
import { queue } from "./queue";
import { scheduled } from "./scheduled";

const app = createApp(remixBuild as unknown as ServerBuild);

export { ConversationRoom } from "../durable-objects/conversation/room";
export { MemberHub } from "../durable-objects/member-hub";
export { PresenceRoom } from "../durable-objects/presence/room";

const handler = {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  scheduled: (controller, env) => scheduled(controller, env),
  queue: (batch, env) => queue(batch, env),
} satisfies ExportedHandler<Env>;

/**
 * The same handlers reporting to the error tracker (docs/decisions/025): what they throw, and
 * what the Worker's error handler captures, reaches Sentry with its stack. Only when SENTRY_DSN is
 * set; without it nothing of the SDK runs.
 */
const tracked = Sentry.withSentry(
  (env: Env) => trackerOptions(env),
  // A copy: the SDK instruments the object it is given in place, and `handler` stays plain.
  { ...handler } as ExportedHandler<Env>,
);

/** With the tracker on, a failure the Worker logs and answers anyway reaches it too. */
function trackedWith<T>(env: Env, run: () => T): T {
  reportFailuresToTracker(env);
  return run();
}

export default {
  fetch: (request, env, ctx) =>
    env.SENTRY_DSN
      ? trackedWith(env, () => tracked.fetch!(request, env, ctx))
      : handler.fetch(request, env, ctx),
  scheduled: (controller, env, ctx) =>
    env.SENTRY_DSN
      ? trackedWith(env, () => tracked.scheduled!(controller, env, ctx))
      : handler.scheduled(controller, env),
  queue: (batch, env, ctx) =>
    env.SENTRY_DSN
      ? trackedWith(env, () => tracked.queue!(batch, env, ctx))
      : handler.queue(batch, env),
} satisfies ExportedHandler<Env>;
