import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CsrfInput, FormAlert } from "~/components/form";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { APPEAL_TEXT_MAX, appealSchema } from "~/schemas/verification";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { appellantOf, standingOf, submitAppeal } from "~/server/appeals.server";
import { parseInput, readBody } from "~/server/validation.server";

export const meta: MetaFunction = () => titleMeta("Your account's standing");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** The signed-in member, or a suspended member through the appeal cookie sign-in left. */
async function appellant(context: LoaderFunctionArgs["context"], request: Request) {
  const id = await appellantOf(context.env, request, context.user);
  if (!id) throw redirect("/login?redirectTo=%2Fmy%2Fappeal");
  return id;
}

export async function loader({ context, request }: LoaderFunctionArgs) {
  const id = await appellant(context, request);
  return json(await standingOf(context.env, id), {
    headers: { "Cache-Control": "private, no-store" },
  });
}

export function action({ context, request }: ActionFunctionArgs) {
  return formAction(async () => {
    const id = await appellant(context, request);
    const input = parseInput(appealSchema, await readBody(request));
    return json(await submitAppeal(context.env, id, input), 201);
  });
}

const MEASURE_TEXT = {
  hidden:
    "Your profile is hidden from search after reports from other members, until our moderators review them. You can still use Heartline with the members you already know.",
  suspended:
    "Your account is suspended after reports from other members: you cannot sign in or use Heartline while it is.",
} as const;

export default function AppealPage() {
  const standing = useLoaderData<typeof loader>();
  const result = useActionData<ActionErrors | { message: string }>();
  const busy = useNavigation().state !== "idle";
  const failed = result && "errors" in result;
  const sent = result && !failed;
  return (
    <AppShell>
      <div className="container narrow">
        <div className="page-head">
          <h1>Your account&apos;s standing</h1>
        </div>
        {standing.measure === null ? (
          <p className="card">Your account is in good standing. There is nothing to appeal.</p>
        ) : (
          <section className="card stack" aria-labelledby="why-heading">
            <h2 id="why-heading" className="h3">
              {standing.measure === "suspended"
                ? "Your account is suspended"
                : "Your profile is hidden"}
            </h2>
            <p>{MEASURE_TEXT[standing.measure]}</p>
            <p>Why:</p>
            <ul>
              {standing.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
            <p className="muted small">
              We never tell anyone who reported them. You may appeal once: a moderator reads your
              appeal with the reports and either lifts the measure or keeps it, and that decision is
              final.
            </p>
            <FormAlert message={result?.message} tone={failed ? "error" : "success"} />
            {standing.appeal?.status === "open" && !sent ? (
              <p className="alert alert-success" role="status">
                Your appeal is with our moderators.
              </p>
            ) : null}
            {standing.appeal?.status === "denied" ? (
              <p className="alert alert-warning" role="status">
                A moderator reviewed your appeal and the decision stands.
              </p>
            ) : null}
            {standing.can_appeal && !sent ? (
              <Form method="post" className="stack">
                <CsrfInput />
                <label htmlFor="appeal-text">Your appeal</label>
                <textarea
                  id="appeal-text"
                  name="text"
                  rows={6}
                  required
                  maxLength={APPEAL_TEXT_MAX}
                  aria-describedby="appeal-hint"
                  aria-invalid={failed ? true : undefined}
                />
                <p id="appeal-hint" className="field-hint">
                  Tell us what happened and why the decision should change.
                </p>
                <button type="submit" className="btn btn-primary" disabled={busy}>
                  Send appeal
                </button>
              </Form>
            ) : null}
          </section>
        )}
      </div>
    </AppShell>
  );
}
