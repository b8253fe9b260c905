import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { AppShell } from "~/components/shell";
import { AppUpdate } from "~/components/app-update";
import { ProgressBar } from "~/components/progress-bar";
import { AppLink } from "~/components/link";
import { appearanceFromCookieHeader, APPEARANCE_STORAGE_KEY, type Appearance } from "~/lib/theme";
import { useNonce } from "~/lib/nonce";
import { usePageScripts } from "~/lib/static-page";
import { type RootData, useRootData, viewerOf } from "~/lib/root-data";
import { pageTitle } from "~/lib/title";
import { mintSocketTicket } from "~/server/socket-ticket.server";
import { appearanceAtom } from "~/state/appearance";
import { useClockTicker } from "~/state/clock";
import { Provider, useHydrateAtoms } from "~/state/jotai";
import stylesheet from "~/styles/app.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  // Installable (API.md "Away from the app"): public/manifest.webmanifest, its icons drawn by
  // scripts/draw-icons.ts; iOS takes its home-screen icon from the touch icon.
  { rel: "manifest", href: "/manifest.webmanifest" },
  { rel: "apple-touch-icon", href: "/icons/icon-192.png" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, session } = context;
  return json<RootData>({
    csrfToken: context.csrfToken,
    appearance: appearanceFromCookieHeader(request.headers.get("Cookie")),
    buildVersion: context.buildVersion,
    now: Date.now(),
    user: user ? viewerOf(user) : null,
    socketTicket:
      user?.emailVerifiedAt && session ? await mintSocketTicket(context.env, session) : null,
  });
}

/**
 * Before first paint: if this browser kept a choice in localStorage that the cookie lost, apply it
 * and restore the cookie (the server already rendered the cookie's theme, so normally this is a no-op).
 */
const themeScript = `(function(){try{var k=${JSON.stringify(APPEARANCE_STORAGE_KEY)};var s=localStorage.getItem(k);var c=document.cookie.match(/(?:^|; )appearance=([^;]*)/);if(s&&!c&&/^(dark|light|system)$/.test(s)){document.documentElement.dataset.theme=s;document.cookie="appearance="+s+"; Path=/; Max-Age=31536000; SameSite=Lax";}else if(c&&s!==c[1]){localStorage.setItem(k,c[1]);}}catch(e){}})();`;

/** The page's background in each theme (app/styles/app/theme.css `--bg`). */
const THEME_COLORS = { light: "#faf7f9", dark: "#120d15" } as const;

/**
 * The browser's own bars take the page's colour: the member's theme, or the system's when they
 * follow it (installed, the manifest's colour is the dark theme's until the page loads).
 */
function ThemeColor({ appearance }: { appearance: Appearance }) {
  if (appearance !== "system")
    return <meta name="theme-color" content={THEME_COLORS[appearance]} />;
  return (
    <>
      <meta name="theme-color" media="(prefers-color-scheme: light)" content={THEME_COLORS.light} />
      <meta name="theme-color" media="(prefers-color-scheme: dark)" content={THEME_COLORS.dark} />
    </>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRootData();
  const appearance: Appearance = data?.appearance ?? "dark";
  const nonce = useNonce();
  const scripts = usePageScripts();
  return (
    <html lang="en" data-theme={appearance}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content={data?.csrfToken ?? ""} />
        <meta name="app-version" content={data?.buildVersion ?? ""} />
        <ThemeColor appearance={appearance} />
        {scripts ? (
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
        ) : null}
        <Meta />
        <Links />
      </head>
      <body>
        <ProgressBar />
        {scripts ? <AppUpdate /> : null}
        {children}
        {scripts ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
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
  const data = useRootData();
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
