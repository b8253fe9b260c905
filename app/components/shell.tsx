import { Form, useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import type { RootLoaderData } from "~/root";
import { ChatNavLink } from "./chat/nav-link";
import { CsrfInput } from "./form";
import { AppLink, AppNavLink } from "./link";
import { NotificationsBell, RealtimeProvider } from "./realtime";

export function Logo({ to = "/" }: { to?: string }) {
  return (
    <AppLink to={to} className="logo" aria-label="Heartline home">
      <span className="logo-mark" aria-hidden="true">
        ♥
      </span>
      Heartline
    </AppLink>
  );
}

/** The signed-in layout: header with navigation and account actions, then the page. */
export function AppShell({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<RootLoaderData>("root");
  const user = data?.user;
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="site-header">
        <div className="site-header-inner">
          <Logo to={user ? "/dashboard" : "/"} />
          {user ? (
            <nav className="nav" aria-label="Main">
              <AppNavLink to="/dashboard">Dashboard</AppNavLink>
              {user.emailVerified ? <AppNavLink to="/my/matches">Discover</AppNavLink> : null}
              {user.emailVerified ? <AppNavLink to="/my/likes">Likes</AppNavLink> : null}
              {user.emailVerified ? <ChatNavLink /> : null}
              <AppNavLink to="/my/profile">My profile</AppNavLink>
              <AppNavLink to="/my/activities">Activity</AppNavLink>
              {user.emailVerified ? <AppNavLink to="/my/credits">Credits</AppNavLink> : null}
              {user.emailVerified ? <AppNavLink to="/my/gifts">Gifts</AppNavLink> : null}
              {user.emailVerified ? (
                <AppNavLink to="/my/subscription">Subscription</AppNavLink>
              ) : null}
              <AppNavLink to="/settings">Settings</AppNavLink>
              {user.moderator ? <AppNavLink to="/moderation">Moderation</AppNavLink> : null}
            </nav>
          ) : null}
          <div className="header-actions">
            {user ? (
              <>
                {user.emailVerified ? <NotificationsBell /> : null}
                <span className="avatar" title={user.username} aria-hidden="true">
                  {user.username.slice(0, 1).toUpperCase()}
                </span>
                <Form method="post" action="/logout">
                  <CsrfInput />
                  <button type="submit" className="btn btn-ghost">
                    Sign out
                  </button>
                </Form>
              </>
            ) : (
              <>
                <AppLink to="/login" className="btn btn-ghost">
                  Sign in
                </AppLink>
                <AppLink to="/register" className="btn btn-primary">
                  Join free
                </AppLink>
              </>
            )}
          </div>
        </div>
      </header>
      <main id="main">{children}</main>
      {user?.emailVerified ? <RealtimeProvider memberId={user.id} /> : null}
      <footer className="site-footer">
        <div className="site-footer-inner">
          <span>© {new Date().getUTCFullYear()} Heartline. For adults 18+.</span>
          <span>Safe, honest, made for real connections.</span>
        </div>
      </footer>
    </>
  );
}

/** The authentication layout: a brand panel beside the form. */
export function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth">
      <aside className="auth-brand">
        <Logo />
        <figure>
          <blockquote>“We matched on a Tuesday and we haven’t stopped talking since.”</blockquote>
          <figcaption>Amara &amp; Jonas, together since spring</figcaption>
        </figure>
      </aside>
      <main className="auth-main" id="main">
        <div className="auth-card">{children}</div>
      </main>
    </div>
  );
}
