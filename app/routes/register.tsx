import { latestAdultBirthday } from "~/lib/age";
import { useNow } from "~/state/clock";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { useActionData } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { AuthFormPage, lazyAuthSchema, ValidatedForm } from "~/components/auth-form";
import {
  Field,
  FormAlert,
  PasswordField,
  unplacedMessage,
  useFormValidation,
} from "~/components/form";
import { titleMeta } from "~/lib/title";
import { registerSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { register } from "~/server/auth.server";
import { requireGuest } from "~/server/guards.server";
import { parseInput, readBody } from "~/server/validation.server";
import { signIn } from "~/server/web-auth.server";

export const meta: MetaFunction = () => titleMeta("Register");

const loadRegisterSchema = lazyAuthSchema("registerSchema");

export function loader({ context }: LoaderFunctionArgs) {
  requireGuest(context);
  return null;
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const input = parseInput(registerSchema, await readBody(request));
    const { user, session } = await register(context.env, input, context.meta);
    await signIn(context, session.cookie, user.id);
    return redirect("/verify-email");
  });
}

export default function RegisterPage() {
  const actionData = useActionData<ActionErrors>();
  const now = useNow();
  const form = useFormValidation(loadRegisterSchema, actionData?.errors);
  const otherError = unplacedMessage(actionData, [
    "username",
    "email",
    "password",
    "password_confirmation",
    "dateOfBirth",
  ]);
  return (
    <AuthFormPage
      title="Create your account"
      lead="Free to join. Members must be 18 or older."
      footer={{ text: "Already a member?", to: "/login", link: "Sign in" }}
    >
      <ValidatedForm validation={form} submit="Create account" submitting="Creating account…">
        <FormAlert message={otherError} />
        <Field
          name="username"
          label="Username"
          autoComplete="username"
          required
          autoFocus
          error={form.errorFor("username")}
          hint="3 to 30 letters, numbers or underscores."
        />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          error={form.errorFor("email")}
        />
        <Field
          name="dateOfBirth"
          label="Date of birth"
          type="date"
          required
          max={latestAdultBirthday(now)}
          error={form.errorFor("dateOfBirth")}
        />
        <PasswordField
          name="password"
          label="Password"
          autoComplete="new-password"
          required
          error={form.errorFor("password")}
          hint="At least 8 characters."
        />
        <PasswordField
          name="password_confirmation"
          label="Confirm password"
          autoComplete="new-password"
          required
          error={form.errorFor("password_confirmation")}
        />
        <p className="consent">
          By creating an account you confirm you are 18 or older and agree to our{" "}
          <AppLink to="/terms">Terms</AppLink> and <AppLink to="/privacy">Privacy policy</AppLink>.
        </p>
      </ValidatedForm>
    </AuthFormPage>
  );
}
