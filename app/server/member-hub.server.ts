import type { Env } from "./env.server";

/** The hub of one member (a Durable Object addressed by the member id). */
export const memberHub = (env: Env, userId: string) =>
  env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(userId));
