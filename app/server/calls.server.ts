import { z } from "zod";
import type { Env } from "./env.server";
import { logFailure } from "./log.server";

/**
 * The ICE servers a call's browsers use (docs/api.md "Calls": `GET /chat/ice-servers`), from
 * configuration: `ICE_SERVERS` (JSON, RTCIceServer[]: STUN, or a TURN service with fixed
 * credentials), and, when `TURN_KEY_ID` and the secret `TURN_KEY_API_TOKEN` are set, short-lived
 * credentials for Cloudflare's TURN service, asked for each time (they expire; the key never
 * leaves the server). Without configuration the list is empty: browsers on one network (local
 * development, the tests) reach each other by their host candidates.
 */

const iceServer = z.object({
  urls: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof iceServer>;
const iceServers = z.array(iceServer);

/** How long Cloudflare's TURN credentials given to a browser last (a long call fits in it). */
export const TURN_CREDENTIALS_TTL_SECONDS = 4 * 3600;
const TURN_API_BASE = "https://rtc.live.cloudflare.com";

/** The configured static servers; a malformed setting is a deploy mistake, said loudly. */
function configuredServers(env: Env): IceServer[] {
  if (!env.ICE_SERVERS) return [];
  const parsed = iceServers.safeParse(JSON.parse(env.ICE_SERVERS));
  if (!parsed.success) throw new Error("ICE_SERVERS must be a JSON list of RTCIceServer");
  return parsed.data;
}

/** Short-lived TURN credentials from Cloudflare's service, or none when it cannot be reached. */
async function turnServers(env: Env): Promise<IceServer[]> {
  if (!env.TURN_KEY_ID || !env.TURN_KEY_API_TOKEN) return [];
  const base = env.TURN_API_BASE ?? TURN_API_BASE;
  try {
    const res = await fetch(
      `${base}/v1/turn/keys/${encodeURIComponent(env.TURN_KEY_ID)}/credentials/generate-ice-servers`,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${env.TURN_KEY_API_TOKEN}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ ttl: TURN_CREDENTIALS_TTL_SECONDS }),
      },
    );
    if (!res.ok) throw new Error(`TURN credentials: HTTP ${res.status}`);
    const body = z.object({ iceServers: iceServers }).parse(await res.json());
    return body.iceServers;
  } catch (error) {
    // A call still tries with what else is configured (most pairs need no relay).
    logFailure("turn_credentials_failed", error);
    return [];
  }
}

/**
 * GET /chat/ice-servers: the servers, and how a browser may connect. With a TURN server it is
 * `relay`: media goes through the relay only, so neither browser learns the other's IP address
 * (which tells a city, sometimes a street); without one, `all` (browsers on one network).
 */
export async function iceServersFor(
  env: Env,
): Promise<{ ice_servers: IceServer[]; ice_transport_policy: "relay" | "all" }> {
  const servers = [...configuredServers(env), ...(await turnServers(env))];
  const relays = servers.some((s) =>
    (Array.isArray(s.urls) ? s.urls : [s.urls]).some((u) => /^turns?:/.test(u)),
  );
  return { ice_servers: servers, ice_transport_policy: relays ? "relay" : "all" };
}
