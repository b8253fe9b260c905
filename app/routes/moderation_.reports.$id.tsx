import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { KeptConversation } from "~/components/moderation/parts";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { reportConversation } from "~/server/evidence.server";
import { requireVerifiedUser } from "~/server/guards.server";
import { isModerator } from "~/server/reports.server";

export const meta: MetaFunction = () => titleMeta("Reported conversation");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Moderators only: the conversation of a report's two members, also after an unmatch. */
export async function loader({ context, request, params }: LoaderFunctionArgs) {
  const { user } = requireVerifiedUser(context, request);
  if (!isModerator(user)) throw new Response("Not found", { status: 404 });
  return json(await reportConversation(context.env, params.id ?? ""), {
    headers: { "Cache-Control": "private, no-store" },
  });
}

export default function ReportedConversationPage() {
  const { conversation } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <h1>Reported conversation</h1>
          <p className="muted">
            As the conversation&apos;s room holds it, deleted messages included, also after an
            unmatch ended it for both members.
          </p>
          <AppLink to="/moderation" className="btn btn-ghost btn-sm">
            Back to moderation
          </AppLink>
        </div>
        {conversation === null ? (
          <p className="empty-state">These two members never talked.</p>
        ) : (
          <div className="card">
            <KeptConversation messages={conversation} reportedName="Reported member" />
          </div>
        )}
      </div>
    </AppShell>
  );
}
