import type { ActionFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation, useParams, useSearchParams } from "@remix-run/react";
import { CsrfInput, Field, PasswordField, FormAlert, useFormValidation } from "~/components/form";
import { AppLink } from "~/components/link";
import { AuthLayout } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { resetPasswordSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { resetPassword } from "~/server/auth.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Reset Password");

export function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const input = parseInput(resetPasswordSchema, {
      ...(await readBody(request)),
      token: params.token,
    });
    const { status } = await resetPassword(context.env, input, context.meta);
    return redirect(`/login?status=${encodeURIComponent(status)}`);
  });
}

export default function ResetPasswordPage() {
  const { token } = useParams();
  const [params] = useSearchParams();
  const actionData = useActionData<ActionErrors>();
  const navigation = useNavigation();
  const form = useFormValidation(resetPasswordSchema, actionData?.errors);
  return (
    <AuthLayout>
      <h1>Choose a new password</h1>
      <p className="lead">Pick something you have not used before.</p>
      <Form
        method="post"
        className="form"
        noValidate
        onChange={form.onChange}
        onSubmit={form.onSubmit}
      >
        <CsrfInput />
        <input type="hidden" name="token" value={token} />
        <FormAlert message={actionData?.errors.email ? null : actionData?.message} />
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
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={navigation.state === "submitting"}
        >
          Reset password
        </button>
      </Form>
      <p className="auth-footer">
        Link expired? <AppLink to="/forgot-password">Send a new one</AppLink>
      </p>
    </AuthLayout>
  );
}
