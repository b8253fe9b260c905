import { describe, expect, it } from "vitest";
import { SOCKET_TICKET_RENEW_MS, usableTicket } from "~/realtime/ticket";
import {
  NO_REVOCATIONS,
  revoke,
  SOCKET_TICKET_TTL_MS,
  ticketAdmitted,
} from "~/server/socket-ticket.server";

describe("the page's ticket (app/realtime/ticket.ts)", () => {
  const now = 1_000_000_000;
  const ticket = (leftMs: number) => ({ ticket: "t", expiresAt: now + leftMs });

  it("is used while it has more than the renewal margin left and no socket refused it", () => {
    expect(usableTicket(ticket(SOCKET_TICKET_RENEW_MS + 1), false, now)).toBe(true);
    expect(usableTicket(ticket(SOCKET_TICKET_RENEW_MS), false, now)).toBe(false);
    expect(usableTicket(ticket(SOCKET_TICKET_TTL_MS), true, now)).toBe(false);
    expect(usableTicket(null, false, now)).toBe(false);
  });
});

describe("ticket revocations (the member's hub)", () => {
  const t0 = 5_000_000;
  const a = { sid: "a", iat: t0 };
  const b = { sid: "b", iat: t0 };

  it("a sign-out ends that session's tickets only", () => {
    const r = revoke(NO_REVOCATIONS, { only: "a" }, t0 + 10);
    expect(ticketAdmitted(r, a)).toBe(false);
    expect(ticketAdmitted(r, { sid: "a", iat: t0 + 20 })).toBe(false);
    expect(ticketAdmitted(r, b)).toBe(true);
  });

  it("all sessions but one: older tickets of the others end, the kept one's stay", () => {
    const r = revoke(NO_REVOCATIONS, { allBut: "a" }, t0 + 10);
    expect(ticketAdmitted(r, a)).toBe(true);
    expect(ticketAdmitted(r, b)).toBe(false);
    // A session that signs in afterwards gets tickets that open.
    expect(ticketAdmitted(r, { sid: "c", iat: t0 + 11 })).toBe(true);
  });

  it("all sessions: every older ticket ends; a signed-out session stays ended", () => {
    const signedOut = revoke(NO_REVOCATIONS, { only: "b" }, t0 + 5);
    const r = revoke(signedOut, "all", t0 + 10);
    expect(ticketAdmitted(r, a)).toBe(false);
    expect(ticketAdmitted(r, { sid: "b", iat: t0 + 11 })).toBe(false);
    expect(ticketAdmitted(r, { sid: "c", iat: t0 + 11 })).toBe(true);
  });

  it("forgets single sessions once their tickets have expired", () => {
    const r = revoke(NO_REVOCATIONS, { only: "a" }, t0);
    const later = revoke(r, { only: "b" }, t0 + SOCKET_TICKET_TTL_MS + 1);
    expect(Object.keys(later.ended)).toEqual(["b"]);
  });
});
