import { Link, NavLink, type LinkProps, type NavLinkProps } from "@remix-run/react";

/** Links prefetch their page's data and code on hover or focus intent. */
export function AppLink(props: LinkProps) {
  return <Link prefetch="intent" {...props} />;
}

export function AppNavLink(props: NavLinkProps) {
  return <NavLink prefetch="intent" {...props} />;
}
