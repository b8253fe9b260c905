import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CsrfInput, FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import { AppShell } from "~/components/shell";
import { VerifiedBadge } from "~/components/verification/badge";
import { PoseDrawing } from "~/components/verification/pose-drawing";
import { SelfieCapture } from "~/components/verification/selfie-capture";
import { titleMeta } from "~/lib/title";
import { VERIFICATION_MESSAGES } from "~/schemas/verification";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { readSelfieUpload, submitSelfie, verificationOf } from "~/server/verification.server";

export const meta: MetaFunction = () => titleMeta("Verify your photos");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  return json(await verificationOf(context.env, user.id), {
    headers: { "Cache-Control": "private, no-store" },
  });
}

export function action({ context, request }: ActionFunctionArgs) {
  return formAction(async () => {
    const { user } = requireVerifiedUser(context, request);
    await submitSelfie(context.env, user.id, await readSelfieUpload(request));
    return json({ message: VERIFICATION_MESSAGES.submitted }, 202);
  });
}

export default function VerificationPage() {
  const view = useLoaderData<typeof loader>();
  const result = useActionData<ActionErrors | { message: string }>();
  const busy = useNavigation().state !== "idle";
  const failed = result && "errors" in result;
  const canSend = view.status === "none" || view.status === "rejected";
  return (
    <AppShell>
      <div className="container narrow">
        <div className="page-head">
          <h1>Verify your photos</h1>
          <p className="muted">
            Take a selfie copying a pose. A moderator compares it with the photos on your profile;
            verified members show a badge <VerifiedBadge verified /> on their cards and profile.
            Your selfie is seen by moderators only and deleted as soon as they decide.
          </p>
        </div>
        <FormAlert message={result?.message} tone={failed ? "error" : "success"} />
        {view.status === "verified" ? (
          <p className="card" data-testid="verification-status">
            Your profile is verified. It stays verified while a photo the moderator compared your
            selfie with is on your profile.
          </p>
        ) : view.status === "pending" ? (
          <p className="card" data-testid="verification-status">
            Your selfie is waiting for a moderator. We will show the result here.
          </p>
        ) : null}
        {view.status === "rejected" ? (
          <p className="alert alert-warning" role="status" data-testid="verification-status">
            Your last selfie was not accepted. {view.reason} You can try again with a new pose.
          </p>
        ) : null}
        {view.lost ? (
          <p className="alert alert-warning" role="status">
            Your verification ended when the photos it was compared with left your profile. Verify
            again with your new photos.
          </p>
        ) : null}
        {canSend && !(result && !failed) ? (
          <section className="card stack" aria-labelledby="pose-heading">
            <h2 id="pose-heading" className="h3">
              Copy this pose
            </h2>
            <div className="pose">
              <PoseDrawing pose={view.pose.id} />
              <p data-testid="pose-instruction">{view.pose.instruction}</p>
            </div>
            <Form method="post" encType="multipart/form-data" className="stack">
              <CsrfInput />
              <input type="hidden" name="pose_id" value={view.pose.id} />
              <SelfieCapture />
              <button type="submit" className="btn btn-primary" disabled={busy}>
                Send for verification
              </button>
            </Form>
            <p className="muted small">
              No photo on your profile yet? <AppLink to="/my/profile">Add one first</AppLink>.
            </p>
          </section>
        ) : null}
      </div>
    </AppShell>
  );
}
