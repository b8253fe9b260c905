import type { LinksFunction, LoaderFunctionArgs, SerializeFrom } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { AppShell } from "~/components/shell";
import { ProgressBar } from "~/components/progress-bar";
import { AppLink } from "~/components/link";
import { displayName } from "~/lib/members";
import { appearanceFromCookieHeader, APPEARANCE_STORAGE_KEY, type Appearance } from "~/lib/theme";
import { useNonce } from "~/lib/nonce";
import { pageTitle } from "~/lib/title";
import { appearanceAtom } from "~/state/appearance";
import { useClockTicker } from "~/state/clock";
import { Provider, useHydrateAtoms } from "~/state/jotai";
import stylesheet from "~/styles/app.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = context.user;
  return json({
    csrfToken: context.csrfToken,
    appearance: appearanceFromCookieHeader(request.headers.get("Cookie")),
    buildVersion: context.buildVersion,
    /** The server's clock, so relative times render the same on the server and while hydrating. */
    now: Date.now(),
    user: user
      ? {
          id: user.id,
          username: user.username,
          /** What the app calls the member: their first name once they gave one. */
          name: displayName(user),
          onboarding: user.onboarding,
          emailVerified: Boolean(user.emailVerifiedAt),
          moderator: user.role === "moderator",
        }
      : null,
  });
}

export type RootLoaderData = SerializeFrom<typeof loader>;

/**
 * Before first paint: if this browser kept a choice in localStorage that the cookie lost, apply it
 * and restore the cookie (the server already rendered the cookie's theme, so normally this is a no-op).
 */
const themeScript = `(function(){try{var k=${JSON.stringify(APPEARANCE_STORAGE_KEY)};var s=localStorage.getItem(k);var c=document.cookie.match(/(?:^|; )appearance=([^;]*)/);if(s&&!c&&/^(dark|light|system)$/.test(s)){document.documentElement.dataset.theme=s;document.cookie="appearance="+s+"; Path=/; Max-Age=31536000; SameSite=Lax";}else if(c&&s!==c[1]){localStorage.setItem(k,c[1]);}}catch(e){}})();`;

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const appearance: Appearance = data?.appearance ?? "dark";
  const nonce = useNonce();
  return (
    <html lang="en" data-theme={appearance}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content={data?.csrfToken ?? ""} />
        <meta name="app-version" content={data?.buildVersion ?? ""} />
        <meta name="theme-color" content="#e11d63" />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
        <Meta />
        <Links />
      </head>
      <body>
        <ProgressBar />
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

function HydrateAppearance({
  appearance,
  children,
}: {
  appearance: Appearance;
  children: ReactNode;
}) {
  useHydrateAtoms([[appearanceAtom, appearance]]);
  useClockTicker();
  return <>{children}</>;
}

export default function App() {
  const data = useRouteLoaderData<typeof loader>("root");
  return (
    <Provider>
      <HydrateAppearance appearance={data?.appearance ?? "dark"}>
        <Outlet />
      </HydrateAppearance>
    </Provider>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const title =
    status === 404 ? "Page not found" : status === 403 ? "Not allowed" : "Something went wrong";
  const detail =
    status === 404
      ? "The page you were looking for does not exist or has moved."
      : status === 403
        ? "You do not have access to this page."
        : "We could not show this page. Please try again in a moment.";
  return (
    <AppShell>
      <title>{pageTitle(title)}</title>
      <section className="error-page">
        <div>
          <p className="error-code">{status}</p>
          <h1>{title}</h1>
          <p className="muted">{detail}</p>
          <AppLink to="/" className="btn btn-primary">
            Back to Heartline
          </AppLink>
        </div>
      </section>
    </AppShell>
  );
}
