import type { ReactNode } from "react";
import { AuthLayout } from "./shell";

/**
 * One of the signed-out account pages (sign in, register, forgotten and new password, password
 * confirmation): the auth layout with its heading, lead, form and an optional footer line.
 */
export function AuthFormPage({
  title,
  lead,
  footer,
  children,
}: {
  title: string;
  lead: string;
  footer?: ReactNode;
  children: ReactNode;
}) {
  return (
    <AuthLayout>
      <h1>{title}</h1>
      <p className="lead">{lead}</p>
      {children}
      {footer ? <p className="auth-footer">{footer}</p> : null}
    </AuthLayout>
  );
}

type AuthSchemas = typeof import("~/schemas/auth");

/** An auth form's schema, fetched with zod on the first keystroke rather than with the page. */
export const lazyAuthSchema =
  <K extends keyof AuthSchemas>(name: K) =>
  () =>
    import("~/schemas/auth").then((m) => m[name]);
