import { Form, useLocation, useSubmit } from "@remix-run/react";
import { forgetPushOnThisDevice } from "~/lib/push";
import { clearOutgoing } from "~/state/chat-outbox";
import {
  lazy,
  Suspense,
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { useRootData } from "~/lib/root-data";
import { ChatNavLink } from "./chat/nav-link";
import { Icon } from "./icons";
import { CsrfInput } from "./form";
import { AppLink, AppNavLink } from "./link";
import { NotificationsBell } from "./notifications-bell";
import { useNow } from "~/state/clock";

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
  const data = useRootData();
  const user = data?.user;
  const { pathname } = useLocation();
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
              {user.emailVerified ? <ChatNavLink badgeTestId="chat-unread" /> : null}
            </nav>
          ) : null}
          <div className="header-actions">
            {user ? (
              <>
                {user.emailVerified ? <NotificationsBell /> : null}
                <AccountMenu
                  name={user.name}
                  verified={user.emailVerified}
                  moderator={Boolean(user.moderator)}
                />
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
      <main id="main">
        {user?.hiddenByReports && pathname !== "/my/appeal" ? <HiddenNotice /> : null}
        {user?.onboarding === "skipped" && DISCOVERY_PAGES.has(pathname) ? (
          <FinishProfileNudge name={user.name} />
        ) : null}
        {children}
      </main>
      {user?.emailVerified ? (
        <>
          <LiveAfterHydration memberId={user.id} />
          <TabBar />
        </>
      ) : null}
      <SiteFooter />
    </>
  );
}

/**
 * The member's avatar opens everything that is not one of the header's main places: their profile,
 * activities, credits, gifts, subscription, settings, moderation and signing out. A disclosure
 * (`<details>`): it works before the page is interactive, Enter or Space opens it, Tab walks its
 * links, and Escape, a click elsewhere or a new page closes it.
 */
function AccountMenu({
  name,
  verified,
  moderator,
}: {
  name: string;
  verified: boolean;
  moderator: boolean;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    ref.current?.removeAttribute("open");
  }, [pathname]);
  useEffect(() => {
    const onPointer = (event: PointerEvent) => {
      const menu = ref.current;
      if (menu?.open && !menu.contains(event.target as Node)) menu.removeAttribute("open");
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, []);
  const onKeyDown = (event: KeyboardEvent<HTMLDetailsElement>) => {
    const menu = ref.current;
    if (event.key !== "Escape" || !menu?.open) return;
    event.preventDefault();
    menu.removeAttribute("open");
    menu.querySelector("summary")?.focus();
  };
  return (
    <details ref={ref} className="account-menu" onKeyDown={onKeyDown}>
      <summary className="account-button">
        <span className="avatar" aria-hidden="true">
          {name.slice(0, 1).toUpperCase()}
        </span>
        <span className="sr-only">Account menu</span>
      </summary>
      <div className="account-panel">
        <p className="account-name">{name}</p>
        <nav aria-label="Your account">
          <AppNavLink to="/my/profile">My profile</AppNavLink>
          <AppNavLink to="/my/activities">Activities</AppNavLink>
          {verified ? <AppNavLink to="/my/credits">Credits</AppNavLink> : null}
          {verified ? <AppNavLink to="/my/gifts">Gifts</AppNavLink> : null}
          {verified ? <AppNavLink to="/my/subscription">Subscription</AppNavLink> : null}
          <AppNavLink to="/settings">Settings</AppNavLink>
          {moderator ? <AppNavLink to="/moderation">Moderation</AppNavLink> : null}
        </nav>
        <SignOutButton className="btn btn-ghost account-signout" />
      </div>
    </details>
  );
}

/** Where a member who skipped onboarding is reminded to finish their profile. */
const DISCOVERY_PAGES = new Set(["/dashboard", "/my/matches"]);

function FinishProfileNudge({ name }: { name: string }) {
  return (
    <aside className="finish-profile" aria-label="Your profile">
      <p>
        <strong>
          <span className="finish-profile-name">{name}, your</span>
          <span className="finish-profile-short">Your</span> profile is not finished.
        </strong>{" "}
        <span className="finish-profile-why">
          Members with photos, a bio and interests get far more likes and replies.
        </span>
      </p>
      <AppLink to="/onboarding" className="btn btn-primary btn-sm">
        Finish your profile
      </AppLink>
    </aside>
  );
}

/** Every page's footer: the age rule and the pages about Heartline. */
export function SiteFooter() {
  const year = new Date(useNow()).getUTCFullYear();
  return (
    <footer className="site-footer">
      <div className="site-footer-inner">
        <span>© {year} Heartline. For adults 18+.</span>
        <nav aria-label="About Heartline" className="footer-links">
          <AppLink to="/safety">Safety</AppLink>
          <AppLink to="/terms">Terms</AppLink>
          <AppLink to="/privacy">Privacy</AppLink>
          <AppLink to="/contact">Contact</AppLink>
        </nav>
      </div>
    </footer>
  );
}

const Live = lazy(() => import("./live"));

/** Starts the live connections once the page is interactive (nothing to render on the server). */
function LiveAfterHydration({ memberId }: { memberId: string }) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated ? (
    <Suspense fallback={null}>
      <Live memberId={memberId} />
    </Suspense>
  ) : null;
}

/** Ends the session (POST /logout). In the account menu, and in Settings. */
export function SignOutButton({ className = "btn btn-ghost" }: { className?: string }) {
  const submit = useSubmit();
  return (
    <Form
      method="post"
      action="/logout"
      className="signout-form"
      onSubmit={(event) => {
        // This browser's push subscription and unsent messages go first (at most 1.5 s), then
        // the session.
        event.preventDefault();
        const form = event.currentTarget;
        void Promise.allSettled([forgetPushOnThisDevice(), clearOutgoing()]).finally(() =>
          submit(form),
        );
      }}
    >
      <CsrfInput />
      <button type="submit" className={className}>
        Sign out
      </button>
    </Form>
  );
}

/** Phones: the four places members go most, at the bottom of the screen, in reach of a thumb. */
function TabBar() {
  return (
    <nav className="tab-bar" aria-label="Sections">
      <AppNavLink to="/my/matches" className="tab">
        <Icon name="discover" />
        <span>Discover</span>
      </AppNavLink>
      <AppNavLink to="/my/likes" className="tab">
        <Icon name="heart" />
        <span>Likes</span>
      </AppNavLink>
      <ChatNavLink className="tab" icon={<Icon name="chat" />} />
      <AppNavLink to="/my/profile" className="tab">
        <Icon name="profile" />
        <span>Profile</span>
      </AppNavLink>
    </nav>
  );
}

/** The authentication layout: a brand panel beside the form. */
export function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth-page">
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
      <SiteFooter />
    </div>
  );
}

/**
 * A member hidden from search by reports is told on every page, with the way to read why and to
 * appeal (API.md "Unmatch, verification, appeals and message safety").
 */
function HiddenNotice() {
  return (
    <div className="container">
      <div className="alert alert-warning standing-notice" role="status">
        <p>
          Your profile is hidden from search after reports from other members, until our moderators
          review them. <AppLink to="/my/appeal">Read why and appeal</AppLink>
        </p>
      </div>
    </div>
  );
}
