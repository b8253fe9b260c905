import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { AuthLayout } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { memberOfUnsubscribeToken } from "~/server/digest.server";

export const meta: MetaFunction = () => [
  ...titleMeta("Email digests"),
  { name: "robots", content: "noindex" },
];

/** The token is a capability: never cached, never sent on as a referrer. */
const noStore = { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" };
export const headers: HeadersFunction = () => noStore;

/**
 * The unsubscribe link of a notification email (docs/api.md "Away from the app"): works without
 * signing in, its token signed for one member. This page only shows what the button does (a mail
 * scanner following the link changes nothing); the POST, from the button or a mail client's
 * one-click (RFC 8058), is worker/api/push.ts's, which brings the page back with `done`.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const token = params.get("token") ?? "";
  const valid = (await memberOfUnsubscribeToken(context.env, token)) !== null;
  return json(
    { token, valid, done: valid && params.has("done") },
    { status: valid ? 200 : 400, headers: noStore },
  );
}

export default function UnsubscribePage() {
  const { token, valid, done } = useLoaderData<typeof loader>();
  if (done) {
    return (
      <AuthLayout>
        <h1>You are unsubscribed</h1>
        <p className="lead">
          Heartline will send you no more digest emails. Emails about your account (a password
          reset, a new sign-in) still come when you ask for them.
        </p>
        <p className="auth-footer">
          <AppLink to="/settings/notifications">Choose what you hear of</AppLink>
        </p>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout>
      <h1>Email digests</h1>
      {valid ? (
        <>
          <p className="lead">
            Stop the emails that tell you of messages, matches and likes while you are away?
          </p>
          {/* A plain form: the POST is answered by worker/api/push.ts, which comes back here. */}
          <form
            method="post"
            action={`/email/unsubscribe?token=${encodeURIComponent(token)}`}
            className="form"
          >
            <input type="hidden" name="page" value="1" />
            <button type="submit" className="btn btn-primary btn-block">
              Unsubscribe
            </button>
          </form>
        </>
      ) : (
        <FormAlert message="This unsubscribe link is not valid. Sign in to change your email settings." />
      )}
      <p className="auth-footer">
        <AppLink to="/settings/notifications">Notification settings</AppLink>
      </p>
    </AuthLayout>
  );
}
