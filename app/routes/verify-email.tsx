import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CsrfInput, FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { AuthLayout } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { resendVerificationEmail } from "~/server/auth.server";
import { requireUser } from "~/server/guards.server";

export const meta: MetaFunction = () => titleMeta("Verify Email");

export function loader({ context, request }: LoaderFunctionArgs) {
  const invalid = new URL(request.url).searchParams.has("invalid");
  if (!context.user) {
    if (invalid) return json({ email: null, invalid });
    throw redirect("/login?redirectTo=/verify-email");
  }
  if (context.user.emailVerifiedAt && !invalid) throw redirect("/dashboard");
  return json({ email: context.user.email, invalid });
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireUser(context, request);
    await resendVerificationEmail(context.env, user, context.meta);
    return json({ sent: true });
  });
}

export default function VerifyEmailPage() {
  const { email, invalid } = useLoaderData<typeof loader>();
  const actionData = useActionData<ActionErrors | { sent: true }>();
  const navigation = useNavigation();
  return (
    <AuthLayout>
      <h1>Check your inbox</h1>
      {invalid ? (
        <FormAlert message="That verification link is invalid or has expired. Send yourself a new one below." />
      ) : null}
      <p className="lead">
        {email ? (
          <>
            We sent a verification link to <strong>{email}</strong>. Open it to start searching,
            liking and chatting. Meanwhile you can already edit your profile and settings.
          </>
        ) : (
          <>Sign in to send yourself a new verification link.</>
        )}
      </p>
      {email ? (
        <Form method="post" className="form">
          <CsrfInput />
          <FormAlert
            message={
              actionData && "sent" in actionData
                ? "A new verification link has been sent to your email address."
                : null
            }
            tone="success"
          />
          <FormAlert message={actionData && "message" in actionData ? actionData.message : null} />
          <button
            type="submit"
            className="btn btn-primary btn-block"
            disabled={navigation.state === "submitting"}
          >
            Resend verification email
          </button>
        </Form>
      ) : (
        <AppLink to="/login" className="btn btn-primary btn-block">
          Sign in
        </AppLink>
      )}
      <p className="auth-footer">
        <AppLink to="/settings">Go to settings</AppLink>
      </p>
    </AuthLayout>
  );
}
