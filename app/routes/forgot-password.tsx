import type { ActionFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useActionData } from "@remix-run/react";
import { AuthFormPage, lazyAuthSchema, ValidatedForm } from "~/components/auth-form";
import { Field, FormAlert, unplacedMessage, useFormValidation } from "~/components/form";
import { titleMeta } from "~/lib/title";
import { forgotPasswordSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requestPasswordReset } from "~/server/auth.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Forgot Password");

const loadForgotPasswordSchema = lazyAuthSchema("forgotPasswordSchema");

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { email } = parseInput(forgotPasswordSchema, await readBody(request));
    return json(await requestPasswordReset(context.env, email, context.meta));
  });
}

export default function ForgotPasswordPage() {
  const data = useActionData<ActionErrors | { status: string }>();
  const errors = data && "errors" in data ? data : undefined;
  const form = useFormValidation(loadForgotPasswordSchema, errors?.errors);
  return (
    <AuthFormPage
      title="Forgot your password?"
      lead="Tell us your email and we will send you a link to choose a new one."
      footer={{ text: "Remembered it?", to: "/login", link: "Back to sign in" }}
    >
      <ValidatedForm validation={form} submit="Email me a reset link">
        <FormAlert message={data && "status" in data ? data.status : null} tone="success" />
        <FormAlert message={unplacedMessage(errors, ["email"])} />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          autoFocus
          error={form.errorFor("email")}
        />
      </ValidatedForm>
    </AuthFormPage>
  );
}
