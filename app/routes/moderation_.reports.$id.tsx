import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { KeptConversation, KeptPhotos } from "~/components/moderation/parts";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { reportConversation, reportPhotos } from "~/server/evidence.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { isModerator } from "~/server/reports.server";

export const meta: MetaFunction = () => titleMeta("Report");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/**
 * Moderators only: the reported member's photos as they stood at the report (kept after they
 * delete one), and the conversation of the report's two members, also after an unmatch.
 */
export async function loader({ context, request, params }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  if (!isModerator(user)) throw new Response("Not found", { status: 404 });
  const id = params.id ?? "";
  const [{ conversation }, { photos }] = await Promise.all([
    reportConversation(context.env, id),
    reportPhotos(context.env, id),
  ]);
  return json({ conversation, photos }, { headers: { "Cache-Control": "private, no-store" } });
}

export default function ReportPage() {
  const { conversation, photos } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <h1>Report</h1>
          <p className="muted">
            The reported member&apos;s photos as they stood at the report, kept when they delete
            one; their conversation as its room holds it, deleted messages included, also after an
            unmatch ended it for both members.
          </p>
          <AppLink to="/moderation" className="btn btn-ghost btn-sm">
            Back to moderation
          </AppLink>
        </div>
        <section aria-labelledby="report-photos" className="card">
          <h2 id="report-photos" className="h3">
            Photos at the report
          </h2>
          {photos.length === 0 ? (
            <p className="empty-state">No photo was kept with this report.</p>
          ) : (
            <KeptPhotos photos={photos} name="the reported member" />
          )}
        </section>
        <section aria-labelledby="report-conversation" className="card">
          <h2 id="report-conversation" className="h3">
            Their conversation
          </h2>
          {conversation === null ? (
            <p className="empty-state">These two members never talked.</p>
          ) : (
            <KeptConversation messages={conversation} reportedName="Reported member" />
          )}
        </section>
      </div>
    </AppShell>
  );
}
