import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { useActionData, useSearchParams } from "@remix-run/react";
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
import { loginSchema } from "~/schemas/auth";
import type { ActionErrors } from "~/server/actions.server";
import { formAction } from "~/server/actions.server";
import { appealCookie } from "~/server/appeals.server";
import { login, SuspendedError } from "~/server/auth.server";
import { knownDevice } from "~/server/device.server";
import { requireGuest, safeRedirect } from "~/server/guards.server";
import { parseInput, readBody } from "~/server/validation.server";
import { signIn } from "~/server/web-auth.server";

export const meta: MetaFunction = () => titleMeta("Login");

const loadLoginSchema = lazyAuthSchema("loginSchema");

export function loader({ context }: LoaderFunctionArgs) {
  requireGuest(context);
  return null;
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const body = await readBody(request);
    const input = parseInput(loginSchema, body);
    const device = await knownDevice(context.env, request);
    let signedIn: Awaited<ReturnType<typeof login>>;
    try {
      signedIn = await login(context.env, input, context.meta, device);
    } catch (error) {
      // A suspended member who proved their password is told why, and may appeal once.
      if (!(error instanceof SuspendedError)) throw error;
      return redirect("/my/appeal", {
        headers: { "Set-Cookie": await appealCookie(context.env, error.userId) },
      });
    }
    const { user, session } = signedIn;
    await signIn(context, session.cookie, user.id);
    return redirect(safeRedirect(body.redirectTo as string | undefined));
  });
}

export default function LoginPage() {
  const actionData = useActionData<ActionErrors>();
  const [params] = useSearchParams();
  const form = useFormValidation(loadLoginSchema, actionData?.errors);
  const status = params.get("status");
  return (
    <AuthFormPage
      title="Welcome back"
      lead="Sign in to see who is waiting to meet you."
      footer={{ text: "New to Heartline?", to: "/register", link: "Create an account" }}
    >
      <ValidatedForm validation={form} submit="Sign in" submitting="Signing in…">
        <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? ""} />
        <FormAlert message={status} tone="success" />
        <FormAlert message={unplacedMessage(actionData, ["email", "password"])} />
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
      </ValidatedForm>
    </AuthFormPage>
  );
}
