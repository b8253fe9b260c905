import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { CsrfInput, Field, PasswordField, FormAlert, useFormValidation } from "~/components/form";
import { AuthLayout } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { loginSchema } from "~/schemas/auth";
import type { ActionErrors } from "~/server/actions.server";
import { formAction } from "~/server/actions.server";
import { login } from "~/server/auth.server";
import { requireGuest, safeRedirect } from "~/server/guards.server";
import { parseInput, readBody } from "~/server/validation.server";
import { signIn } from "~/server/web-auth.server";

export const meta: MetaFunction = () => titleMeta("Login");

/** The form's schema, fetched with zod on the first keystroke rather than with the page. */
const loadLoginSchema = () => import("~/schemas/auth").then((m) => m.loginSchema);

export function loader({ context }: LoaderFunctionArgs) {
  requireGuest(context);
  return null;
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const body = await readBody(request);
    const input = parseInput(loginSchema, body);
    const { session } = await login(context.env, input, context.meta);
    await signIn(context, session.cookie);
    return redirect(safeRedirect(body.redirectTo as string | undefined));
  });
}

export default function LoginPage() {
  const actionData = useActionData<ActionErrors>();
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const form = useFormValidation(loadLoginSchema, actionData?.errors);
  const status = params.get("status");
  return (
    <AuthLayout>
      <h1>Welcome back</h1>
      <p className="lead">Sign in to see who is waiting to meet you.</p>
      <Form
        method="post"
        className="form"
        noValidate
        onChange={form.onChange}
        onSubmit={form.onSubmit}
      >
        <CsrfInput />
        <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? ""} />
        <FormAlert message={status} tone="success" />
        <FormAlert message={actionData && !actionData.errors.email ? actionData.message : null} />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          autoFocus
          error={form.errorFor("email")}
        />
        <PasswordField
          name="password"
          label="Password"
          autoComplete="current-password"
          required
          error={form.errorFor("password")}
        />
        <div className="form-row">
          <label className="checkbox">
            <input type="checkbox" name="remember" /> Remember me
          </label>
          <AppLink to="/forgot-password">Forgot your password?</AppLink>
        </div>
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={navigation.state === "submitting"}
        >
          {navigation.state === "submitting" ? "Signing in…" : "Sign in"}
        </button>
      </Form>
      <p className="auth-footer">
        New to Heartline? <AppLink to="/register">Create an account</AppLink>
      </p>
    </AuthLayout>
  );
}
