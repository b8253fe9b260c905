import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { devMailboxOpen } from "~/server/env.server";
import { readMailbox } from "~/server/mail.server";

export const meta: MetaFunction = () => titleMeta("Mailbox");

/** Local development only: the emails the app would have sent (see devMailboxOpen). */
export async function loader({ context }: LoaderFunctionArgs) {
  if (!devMailboxOpen(context.env)) throw new Response("Not Found", { status: 404 });
  return json({ emails: await readMailbox(context.env) });
}

const linkPattern = /(https?:\/\/[^\s]+)/g;

function Linkified({ text }: { text: string }) {
  return (
    <>
      {text.split(linkPattern).map((part, i) =>
        linkPattern.test(part) ? (
          <a key={i} href={part}>
            {part}
          </a>
        ) : (
          <span key={i}>{part}</span>
        ),
      )}
    </>
  );
}

export default function MailboxPage() {
  const { emails } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <div>
            <h1>Mailbox</h1>
            <p className="muted">
              Emails sent in local development, newest first. Nothing here was really delivered.
            </p>
          </div>
        </div>
        {emails.length === 0 ? (
          <div className="card">
            <p className="muted">No emails yet.</p>
          </div>
        ) : (
          <div className="mail-list">
            {emails.map((email, i) => (
              <details key={`${email.sent_at}-${i}`} className="card mail-item" open={i === 0}>
                <summary>
                  <strong>{email.subject}</strong>
                  <span className="muted">
                    to {email.to} · {new Date(email.sent_at).toLocaleString()}
                  </span>
                </summary>
                {Object.keys(email.headers).length > 0 ? (
                  <dl className="mail-headers muted">
                    {Object.entries(email.headers).map(([name, value]) => (
                      <div key={name}>
                        <dt>{name}:</dt> <dd>{value}</dd>
                      </div>
                    ))}
                  </dl>
                ) : null}
                <p className="mail-body">
                  <Linkified text={email.text} />
                </p>
              </details>
            ))}
          </div>
        )}
      </div>
    </AppShell>
  );
}
