import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Outlet } from "@remix-run/react";
import { AppNavLink } from "~/components/link";
import { AppShell, SignOutButton } from "~/components/shell";
import { requireUser } from "~/server/guards.server";

/** Settings are open to members whose email is not verified yet. */
export function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  return null;
}

export default function SettingsLayout() {
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <h1>Settings</h1>
          <SignOutButton className="btn btn-secondary btn-sm phone-only" />
        </div>
        <div className="settings">
          <nav className="settings-nav" aria-label="Settings">
            <AppNavLink to="/settings/profile">Profile</AppNavLink>
            <AppNavLink to="/settings/password">Password</AppNavLink>
            <AppNavLink to="/settings/appearance">Appearance</AppNavLink>
            <AppNavLink to="/settings/notifications">Notifications</AppNavLink>
            <AppNavLink to="/settings/privacy">Privacy</AppNavLink>
            <AppNavLink to="/settings/blocked">Blocked members</AppNavLink>
            <AppNavLink to="/settings/account">Account</AppNavLink>
          </nav>
          <div>
            <Outlet />
          </div>
        </div>
      </div>
    </AppShell>
  );
}
