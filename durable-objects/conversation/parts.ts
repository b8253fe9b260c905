import type { Refusal } from "~/server/room-api.server";
import type { Env } from "~/server/env.server";
import type { ClientIdLeases } from "./client-ids";
import type { Outbox } from "./outbox";
import type { RoomRulesCache } from "./rules";
import type { SendLeases } from "./send-leases";
import type { RoomSockets } from "./sockets";
import type { ConversationStorage } from "./storage";

/** The parts of one conversation room, which its sending, reading and import work with. */
export interface RoomParts {
  readonly ctx: DurableObjectState;
  readonly env: Env;
  readonly storage: ConversationStorage;
  readonly rules: RoomRulesCache;
  readonly sockets: RoomSockets;
  readonly outbox: Outbox;
  /** The client-id leases of the members' hubs held here (client-ids.ts). */
  readonly clientIds: ClientIdLeases;
  /** The sends the members' hubs granted here (send-leases.ts). */
  readonly sends: SendLeases;
}

/** A refusal the API turns into a 4xx. */
export const refused = (status: number, message: string): { ok: false; refusal: Refusal } => ({
  ok: false,
  refusal: { status, message },
});
