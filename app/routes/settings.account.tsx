import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useState } from "react";
import { CsrfInput, FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { titleMeta } from "~/lib/title";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { deleteAccount } from "~/server/account.server";
import { creditBalance } from "~/server/credits.server";
import { currentSubscription } from "~/server/subscriptions.server";
import { requirePasswordConfirmed, requireUser } from "~/server/guards.server";
import { isPasswordRecentlyConfirmed } from "~/server/session.server";
import { readBody } from "~/server/validation.server";
import { ValidationError } from "~/server/errors.server";
import { signOut } from "~/server/web-auth.server";
import { dayText } from "~/lib/dates";

export const meta: MetaFunction = () => titleMeta("Account Settings");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

const CONFIRM_DELETE_MESSAGE = "Please confirm that you want to delete your account.";

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user, session } = requireUser(context, request);
  const [subscription, credits] = await Promise.all([
    currentSubscription(context.env, user.id),
    creditBalance(context.env, user.id),
  ]);
  return json({
    username: user.username,
    confirmed: isPasswordRecentlyConfirmed(session),
    // What deleting does to what the member pays for, said before they confirm.
    subscription: subscription
      ? {
          plan: subscription.plan.name,
          status: subscription.status,
          current_period_end: subscription.current_period_end,
        }
      : null,
    balance: credits.balance,
  });
}

/** Deleting the account: needs a recent password confirmation and the box ticked. */
export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requirePasswordConfirmed(context, request);
    const body = await readBody(request);
    if (body.confirm !== "yes") throw new ValidationError({ confirm: [CONFIRM_DELETE_MESSAGE] });
    await deleteAccount(context.env, user.id, new URL(request.url).origin);
    await signOut(context);
    return redirect("/account-deleted");
  });
}

export default function AccountSettingsPage() {
  const { username, confirmed, subscription, balance } = useLoaderData<typeof loader>();
  const data = useActionData<ActionErrors>();
  const navigation = useNavigation();
  const [sure, setSure] = useState(false);
  return (
    <>
      <section className="card" aria-labelledby="export-heading">
        <h2 id="export-heading">Download your data</h2>
        <p className="muted">
          A JSON file with your account, profile, photo details, likes, the messages you sent,
          notifications, blocks and reports you made.
        </p>
        <a href="/my/export" className="btn btn-secondary" download>
          Download my data
        </a>
      </section>
      <section className="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete account</h2>
        <p className="muted">
          This deletes @{username} for good: your profile and photos, likes, matches, your
          conversations and their messages, notifications, blocks and credits. It cannot be undone.
          Download your data first if you want to keep a copy.
        </p>
        {subscription ? (
          <p className="alert alert-warning" data-testid="subscription-warning">
            Your {subscription.plan} subscription{" "}
            {subscription.status === "cancelled"
              ? `is already cancelled and would end on ${dayText(subscription.current_period_end)}`
              : `would renew on ${dayText(subscription.current_period_end)}`}
            . Deleting your account cancels it at once: you will not be charged again, and the rest
            of the current period is not refunded.
          </p>
        ) : null}
        {balance > 0 ? (
          <p className="muted">Your {balance} credits are deleted with the account.</p>
        ) : null}
        <p className="muted">
          Records of your payments (amounts and dates, without your name or email) are kept for
          accounting, as the law requires.
        </p>
        {confirmed ? (
          <Form method="post" className="form">
            <CsrfInput />
            <FormAlert message={data?.message} />
            <label className="checkbox">
              <input
                type="checkbox"
                name="confirm"
                value="yes"
                checked={sure}
                onChange={(e) => setSure(e.target.checked)}
              />
              I understand that my account and everything in it will be deleted.
            </label>
            <div>
              <button
                type="submit"
                className="btn btn-danger"
                disabled={!sure || navigation.state === "submitting"}
              >
                {navigation.state === "submitting" ? "Deleting…" : "Delete my account"}
              </button>
            </div>
          </Form>
        ) : (
          <AppLink
            to={`/confirm-password?redirectTo=${encodeURIComponent("/settings/account")}`}
            className="btn btn-danger"
          >
            Confirm your password to delete your account
          </AppLink>
        )}
      </section>
    </>
  );
}
