import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useParams, useSearchParams } from "@remix-run/react";
import { AuthFormPage, lazyAuthSchema, ValidatedForm } from "~/components/auth-form";
import {
  Field,
  FormAlert,
  PasswordField,
  unplacedMessage,
  useFormValidation,
} from "~/components/form";
import { AppLink } from "~/components/link";
import { AuthLayout } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { resetPasswordSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { isResetTokenUsable, RESET_TOKEN_INVALID, resetPassword } from "~/server/auth.server";
import { deviceCookie } from "~/server/device.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Reset Password");

const loadResetPasswordSchema = lazyAuthSchema("resetPasswordSchema");

/**
 * A link that can no longer be used (unknown, spent or expired) says so at once, instead of a form
 * that would only fail when submitted. The token is checked, not spent.
 */
export async function loader({ context, params }: LoaderFunctionArgs) {
  const usable = await isResetTokenUsable(context.env, params.token ?? "");
  const headers = { "Cache-Control": "private, no-store" };
  if (usable) return json({ usable }, { headers });
  // A data request gets the reason too, as every JSON error does.
  return json({ usable, message: RESET_TOKEN_INVALID }, { status: 410, headers });
}

export function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const input = parseInput(resetPasswordSchema, {
      ...(await readBody(request)),
      token: params.token,
    });
    const { status, memberId } = await resetPassword(context.env, input, context.meta);
    // This browser is one the member proved theirs: a device they sign in from (device.server.ts).
    context.appendCookie(await deviceCookie(context.env, memberId));
    return redirect(`/login?status=${encodeURIComponent(status)}`);
  });
}

export default function ResetPasswordPage() {
  const { usable } = useLoaderData<typeof loader>();
  return usable ? <ResetPasswordForm /> : <ExpiredLink />;
}

function ExpiredLink() {
  return (
    <AuthLayout>
      <h1>This reset link has expired</h1>
      <FormAlert message="This password reset link is invalid or has already been used. Links work once, for one hour." />
      <p className="lead">Ask for a new link and we will email it to you straight away.</p>
      <AppLink to="/forgot-password" className="btn btn-primary btn-block">
        Send me a new link
      </AppLink>
      <p className="auth-footer">
        Remembered it? <AppLink to="/login">Back to sign in</AppLink>
      </p>
    </AuthLayout>
  );
}

function ResetPasswordForm() {
  const { token } = useParams();
  const [params] = useSearchParams();
  const actionData = useActionData<ActionErrors>();
  const form = useFormValidation(loadResetPasswordSchema, actionData?.errors);
  return (
    <AuthFormPage
      title="Choose a new password"
      lead="Pick something you have not used before."
      footer={{ text: "Link expired?", to: "/forgot-password", link: "Send a new one" }}
    >
      <ValidatedForm validation={form} submit="Reset password">
        <input type="hidden" name="token" value={token} />
        <FormAlert
          message={unplacedMessage(actionData, ["email", "password", "password_confirmation"])}
        />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          defaultValue={params.get("email") ?? ""}
          error={form.errorFor("email")}
        />
        <PasswordField
          name="password"
          label="New password"
          autoComplete="new-password"
          required
          autoFocus
          error={form.errorFor("password")}
        />
        <PasswordField
          name="password_confirmation"
          label="Confirm new password"
          autoComplete="new-password"
          required
          error={form.errorFor("password_confirmation")}
        />
      </ValidatedForm>
    </AuthFormPage>
  );
}
