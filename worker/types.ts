import type { RequestContext } from "~/server/context.server";
import type { Env } from "~/server/env.server";
import type { TicketClaims } from "~/server/socket-ticket.server";

export type AppBindings = {
  Bindings: Env;
  Variables: {
    requestId: string;
    rc: RequestContext;
    cookies: string[];
    csrfSecret: string;
    cspNonce: string;
    /** A websocket upgrade's checked socket ticket (worker/realtime.ts socketTicketAuth). */
    socketTicket?: TicketClaims;
  };
};
