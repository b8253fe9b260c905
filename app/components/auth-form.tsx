import { Form, useNavigation } from "@remix-run/react";
import type { ReactNode, Ref } from "react";
import { CsrfInput, type useFormValidation } from "./form";
import { AppLink } from "./link";
import { AuthLayout } from "./shell";

/*
 * The account's forms: sign in, register, forgotten and new password, password confirmation
 * and change.
 */

/**
 * An account page's posted form, written once: it carries the CSRF token, is checked with its shared schema
 * (`useFormValidation`) as the member types, and ends with one submit button that is disabled, and
 * may say so, while the page submits. A `block` button spans the form; otherwise it sits in a row.
 */
export function ValidatedForm({
  validation,
  submit,
  submitting = submit,
  block = true,
  formRef,
  children,
}: {
  validation: Pick<ReturnType<typeof useFormValidation>, "onChange" | "onSubmit">;
  submit: string;
  submitting?: string;
  block?: boolean;
  formRef?: Ref<HTMLFormElement>;
  children: ReactNode;
}) {
  const busy = useNavigation().state === "submitting";
  const button = (
    <button
      type="submit"
      className={block ? "btn btn-primary btn-block" : "btn btn-primary"}
      disabled={busy}
    >
      {busy ? submitting : submit}
    </button>
  );
  return (
    <Form
      ref={formRef}
      method="post"
      className="form"
      noValidate
      onChange={validation.onChange}
      onSubmit={validation.onSubmit}
    >
      <CsrfInput />
      {children}
      {block ? button : <div>{button}</div>}
    </Form>
  );
}

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
  /** The line under the form: a question and the link that answers it. */
  footer?: { text: string; to: string; link: string };
  children: ReactNode;
}) {
  return (
    <AuthLayout>
      <h1>{title}</h1>
      <p className="lead">{lead}</p>
      {children}
      {footer ? (
        <p className="auth-footer">
          {footer.text} <AppLink to={footer.to}>{footer.link}</AppLink>
        </p>
      ) : null}
    </AuthLayout>
  );
}

type AuthSchemas = typeof import("~/schemas/auth");

/** An auth form's schema, fetched with zod on the first keystroke rather than with the page. */
export const lazyAuthSchema =
  <K extends keyof AuthSchemas>(name: K) =>
  () =>
    import("~/schemas/auth").then((m) => m[name]);
