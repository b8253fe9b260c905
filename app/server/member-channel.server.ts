import type { MemberServerFrame } from "~/realtime/member";
import type { Env } from "./env.server";

/**
 * Publishes a frame to a member's own channel (every open page of theirs). Delivery is best
 * effort: what matters is stored in D1 first, and a page that was closed loads it on open.
 */
export async function publishToMember(env: Env, userId: string, frame: MemberServerFrame) {
  try {
    const hub = env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(userId));
    await hub.publish(frame);
  } catch (error) {
    console.error(
      JSON.stringify({ level: "error", event: "publish_to_member_failed", error: String(error) }),
    );
  }
}
