import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { useActionData, useSearchParams } from "@remix-run/react";
import { AuthFormPage, ValidatedForm } from "~/components/auth-form";
import { FormAlert, PasswordField, unplacedMessage, useFormValidation } from "~/components/form";
import { titleMeta } from "~/lib/title";
import { confirmPasswordSchema } from "~/schemas/auth";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { confirmPassword } from "~/server/auth.server";
import { requireUser, safeRedirect } from "~/server/guards.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Confirm Password");

export function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  return null;
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user, session } = requireUser(context, request);
    const body = await readBody(request);
    await confirmPassword(context.env, user, session, parseInput(confirmPasswordSchema, body));
    return redirect(safeRedirect(body.redirectTo as string | undefined, "/settings"));
  });
}

export default function ConfirmPasswordPage() {
  const actionData = useActionData<ActionErrors>();
  const [params] = useSearchParams();
  const form = useFormValidation(confirmPasswordSchema, actionData?.errors);
  return (
    <AuthFormPage
      title="Confirm your password"
      lead="This is a secure area. Please confirm your password before continuing."
    >
      <ValidatedForm validation={form} submit="Confirm">
        <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? ""} />
        <FormAlert message={unplacedMessage(actionData, ["password"])} />
        <PasswordField
          name="password"
          label="Password"
          autoComplete="current-password"
          required
          autoFocus
          error={form.errorFor("password")}
        />
      </ValidatedForm>
    </AuthFormPage>
  );
}
