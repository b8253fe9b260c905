import { useRouteLoaderData } from "@remix-run/react";
import { displayName } from "./members";
import type { Appearance } from "./theme";

/** The signed-in member as every page sees them: the root loader's `user`. */
export interface Viewer {
  id: string;
  username: string;
  /** What the app calls the member: their first name once they gave one. */
  name: string;
  onboarding: "pending" | "skipped" | "done";
  emailVerified: boolean;
  moderator: boolean;
  /** Hidden from search by reports: every page says so and leads to the appeal. */
  hiddenByReports: boolean;
}

/** What opens the member's sockets without a database read (app/realtime/ticket.ts). */
export interface SocketTicket {
  ticket: string;
  /** When it stops opening sockets (ms since the epoch). */
  expiresAt: number;
}

/** What the root loader gives every page. */
export interface RootData {
  csrfToken: string;
  appearance: Appearance;
  buildVersion: string;
  /** The server's clock, so relative times render the same on the server and while hydrating. */
  now: number;
  user: Viewer | null;
  /** A signed-in member with a verified email's socket ticket. */
  socketTicket: SocketTicket | null;
}

/** The session's member, reduced to what pages may see of them. */
export function viewerOf(user: {
  id: string;
  username: string;
  firstName: string | null;
  onboarding: Viewer["onboarding"];
  emailVerifiedAt: string | null;
  role: string;
  hiddenByReports?: boolean;
}): Viewer {
  return {
    id: user.id,
    username: user.username,
    name: displayName(user),
    onboarding: user.onboarding,
    emailVerified: Boolean(user.emailVerifiedAt),
    moderator: user.role === "moderator",
    hiddenByReports: Boolean(user.hiddenByReports),
  };
}

/** The root loader's data, from any component below the root (undefined above it). */
export function useRootData(): RootData | undefined {
  return useRouteLoaderData<RootData>("root");
}
