import type { ActionFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { CsrfInput, Field, FormAlert, useFormValidation } from "~/components/form";
import { AuthLayout } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { forgotPasswordSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requestPasswordReset } from "~/server/auth.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Forgot Password");

/** The form's schema, fetched with zod on the first keystroke rather than with the page. */
const loadForgotPasswordSchema = () => import("~/schemas/auth").then((m) => m.forgotPasswordSchema);

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { email } = parseInput(forgotPasswordSchema, await readBody(request));
    return json(await requestPasswordReset(context.env, email, context.meta));
  });
}

export default function ForgotPasswordPage() {
  const data = useActionData<ActionErrors | { status: string }>();
  const navigation = useNavigation();
  const errors = data && "errors" in data ? data : undefined;
  const form = useFormValidation(loadForgotPasswordSchema, errors?.errors);
  return (
    <AuthLayout>
      <h1>Forgot your password?</h1>
      <p className="lead">Tell us your email and we will send you a link to choose a new one.</p>
      <Form
        method="post"
        className="form"
        noValidate
        onChange={form.onChange}
        onSubmit={form.onSubmit}
      >
        <CsrfInput />
        <FormAlert message={data && "status" in data ? data.status : null} tone="success" />
        <FormAlert message={errors && !errors.errors.email ? errors.message : null} />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          autoFocus
          error={form.errorFor("email")}
        />
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={navigation.state === "submitting"}
        >
          Email me a reset link
        </button>
      </Form>
      <p className="auth-footer">
        Remembered it? <AppLink to="/login">Back to sign in</AppLink>
      </p>
    </AuthLayout>
  );
}
