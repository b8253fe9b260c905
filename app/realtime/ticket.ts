import { api } from "~/lib/http";
import type { SocketTicket } from "~/lib/root-data";

/**
 * The page's socket ticket (docs/decisions/044): it opens the member's sockets without a
 * database read, so that a deploy's reconnect wave costs D1 nothing. The root loader gives one
 * with the page (`useSocketTicket`); every socket URL carries it (`socketUrl`, asked by
 * partysocket before each connection). A ticket close to its end, or one a server refused (a
 * socket closed with 4401: its session ended), is replaced from POST /my/socket-ticket first; if
 * that fails the socket connects with the session cookie alone, as before tickets.
 */

/** A ticket is replaced this long before it expires. */
export const SOCKET_TICKET_RENEW_MS = 10 * 60_000;

let held: SocketTicket | null = null;
let refused = false;
let renewing: Promise<SocketTicket | null> | null = null;

/** The ticket a page came with (the newest one wins). */
export function setSocketTicket(ticket: SocketTicket | null | undefined) {
  if (!ticket || (held && held.expiresAt >= ticket.expiresAt)) return;
  held = ticket;
  refused = false;
}

/** A socket was closed with 4401: its ticket's session ended, or the ticket is no good. */
export function socketTicketRefused() {
  refused = true;
}

/** Whether the held ticket can be used at `now` (the pure rule, tested on its own). */
export function usableTicket(
  ticket: SocketTicket | null,
  isRefused: boolean,
  now: number,
): ticket is SocketTicket {
  return ticket !== null && !isRefused && ticket.expiresAt - now > SOCKET_TICKET_RENEW_MS;
}

async function currentTicket(): Promise<SocketTicket | null> {
  if (usableTicket(held, refused, Date.now())) return held;
  renewing ??= api<{ ticket: string; expires_at: number }>("/my/socket-ticket", { method: "POST" })
    .then((fresh) => {
      held = { ticket: fresh.ticket, expiresAt: fresh.expires_at };
      refused = false;
      return held;
    })
    // Signed out, or the network is down: the socket tries with its cookie, and backs off.
    .catch(() => null)
    .finally(() => {
      renewing = null;
    });
  return renewing;
}

/** A socket's URL (`base`: ws(s)://origin, `path`: /ws/…) with the page's ticket. */
export async function socketUrl(base: string, path: string): Promise<string> {
  const ticket = await currentTicket();
  return ticket ? `${base}${path}?ticket=${encodeURIComponent(ticket.ticket)}` : `${base}${path}`;
}
