import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useActionData } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { ValidatedForm } from "~/components/auth-form";
import { Field, FormAlert, unplacedMessage, useFormValidation } from "~/components/form";
import { titleMeta } from "~/lib/title";
import { updatePasswordSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { changePassword } from "~/server/auth.server";
import { requirePasswordConfirmed } from "~/server/guards.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Password Settings");

export function loader({ context, request }: LoaderFunctionArgs) {
  requirePasswordConfirmed(context, request);
  return null;
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user, session } = requirePasswordConfirmed(context, request);
    const input = parseInput(updatePasswordSchema, await readBody(request));
    await changePassword(context.env, user, session, input, context.meta.origin);
    return json({ status: "Password updated. Your other sessions have been signed out." });
  });
}

export default function PasswordSettingsPage() {
  const data = useActionData<ActionErrors | { status: string }>();
  const errors = data && "errors" in data ? data.errors : undefined;
  const form = useFormValidation(updatePasswordSchema, errors);
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (data && "status" in data) ref.current?.reset();
  }, [data]);
  return (
    <section className="card">
      <h2>Change password</h2>
      <p className="muted">Changing your password signs you out everywhere else.</p>
      <ValidatedForm validation={form} submit="Update password" block={false} formRef={ref}>
        <FormAlert message={data && "status" in data ? data.status : null} tone="success" />
        <FormAlert
          message={unplacedMessage(data && "errors" in data ? data : null, [
            "current_password",
            "password",
            "password_confirmation",
          ])}
        />
        <Field
          name="current_password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          error={form.errorFor("current_password")}
        />
        <Field
          name="password"
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          error={form.errorFor("password")}
        />
        <Field
          name="password_confirmation"
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          required
          error={form.errorFor("password_confirmation")}
        />
      </ValidatedForm>
    </section>
  );
}
