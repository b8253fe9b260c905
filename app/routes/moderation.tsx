import { TimeAgo } from "~/components/time-ago";
import type {
  ActionFunctionArgs,
  HeadersFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { pageOf } from "~/schemas/query";
import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { FormAlert } from "~/components/form";
import { AppLink } from "~/components/link";
import {
  ItemHead,
  KeptConversation,
  KeptPhotos,
  ModerationAction,
  RejectVerification,
} from "~/components/moderation/parts";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";
import { REPORT_HIDE_WEIGHT, REPORT_REASON_LABELS, REPORT_WEIGHT } from "~/schemas/report";
import { formAction, type ActionErrors } from "~/server/actions.server";
import { requireVerifiedUser } from "~/server/guards.server";
import {
  dismissReport,
  isModerator,
  listOpenReports,
  suspendMember,
} from "~/server/reports.server";
import { listEvidence } from "~/server/evidence.server";
import { clearReview, listReviews } from "~/server/returning.server";
import { denyAppeal, grantAppeal, listOpenAppeals } from "~/server/appeals.server";
import {
  approveVerification,
  listPendingVerifications,
  rejectVerification,
} from "~/server/verification.server";
import { rejectVerificationSchema } from "~/schemas/verification";
import { parseInput } from "~/server/validation.server";
import { readBody } from "~/server/validation.server";
import { ValidationError } from "~/server/errors.server";

export const meta: MetaFunction = () => titleMeta("Moderation");

export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Moderators only; for everyone else the page does not exist. */
function requireModeratorPage(context: LoaderFunctionArgs["context"], request: Request) {
  const { user } = requireVerifiedUser(context, request);
  if (!isModerator(user)) throw new Response("Not found", { status: 404 });
  return user;
}

export async function loader({ context, request }: LoaderFunctionArgs) {
  requireModeratorPage(context, request);
  const page = pageOf(request);
  const [open, kept, reviews, appeals, verifications] = await Promise.all([
    listOpenReports(context.env, page),
    listEvidence(context.env, 1),
    listReviews(context.env),
    listOpenAppeals(context.env),
    listPendingVerifications(context.env),
  ]);
  return json(
    {
      ...open,
      evidence: kept.evidence,
      moreEvidence: kept.meta.has_more,
      reviews,
      appeals,
      verifications,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const moderator = requireModeratorPage(context, request);
    const body = await readBody(request);
    const id = typeof body.id === "string" ? body.id : "";
    // The app's address, for the links of the emails a decision sends the member.
    const origin = new URL(request.url).origin;
    if (body.intent === "dismiss") return json(await dismissReport(context.env, moderator, id));
    if (body.intent === "suspend") return json(await suspendMember(context.env, moderator, id));
    if (body.intent === "clear") return json(await clearReview(context.env, id));
    if (body.intent === "grant") {
      return json(await grantAppeal(context.env, moderator, id, origin));
    }
    if (body.intent === "deny") return json(await denyAppeal(context.env, moderator, id, origin));
    if (body.intent === "approve") {
      return json(await approveVerification(context.env, moderator, id, origin));
    }
    if (body.intent === "reject") {
      const { reason } = parseInput(rejectVerificationSchema, body);
      return json(await rejectVerification(context.env, moderator, id, reason, origin));
    }
    throw new ValidationError({ intent: ["Unknown action."] });
  });
}

export default function ModerationPage() {
  const { reports, meta, evidence, moreEvidence, reviews, appeals, verifications } =
    useLoaderData<typeof loader>();
  const result = useActionData<ActionErrors | { message: string }>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const failed = result && "errors" in result;
  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <h1>Moderation</h1>
          <p className="muted">
            Open reports, longest waiting first. Each report weighs what its reporter&apos;s
            standing is worth (accounts verified less than {REPORT_WEIGHT.NEW_DAYS} days ago weigh
            nothing); a member whose open reports weigh {REPORT_HIDE_WEIGHT} or more is hidden from
            search until their reports are reviewed.
          </p>
          <p className="muted small" id="suspend-effects">
            Suspending signs the member out everywhere and closes their sockets at once. Their
            subscription does not renew: it ends with the period already paid (no refund is made),
            and their credits stay on the account, unusable while it is suspended.
          </p>
        </div>
        <FormAlert message={result?.message} tone={failed ? "error" : "success"} />
        {reports.length === 0 ? (
          <p className="empty-state">No open reports.</p>
        ) : (
          <ul className="report-list" aria-label="Open reports">
            {reports.map((report) => (
              <li key={report.id} className="card report-item">
                <ItemHead
                  username={report.reported.username}
                  detail={<span className="muted small">{report.reported.email}</span>}
                  badges={
                    <>
                      <span className="pill">{REPORT_REASON_LABELS[report.reason_type]}</span>
                      <span className="pill">
                        {report.reported.open_reports} open{" "}
                        {report.reported.open_reports === 1 ? "report" : "reports"}
                        {`, weight ${report.reported.open_weight}`}
                      </span>
                      {report.reported.hidden_from_search ? (
                        <span className="pill pill-warning">Hidden from search</span>
                      ) : null}
                      {report.reported.status === "suspended" ? (
                        <span className="pill pill-danger">Suspended</span>
                      ) : null}
                    </>
                  }
                  aside={
                    <>
                      {`by @${report.reporter.username} (weight ${report.weight}: verified ${report.reporter.verified_days} days, ${report.reporter.reports_upheld} upheld, ${report.reporter.reports_dismissed} dismissed), `}
                      <TimeAgo iso={report.created_at} />
                    </>
                  }
                />
                {report.details ? <p className="bio">{report.details}</p> : null}
                {report.message_text !== null ? (
                  <blockquote className="report-message">
                    <span className="muted small">Reported message</span>
                    <p>{report.message_text || "(deleted)"}</p>
                  </blockquote>
                ) : null}
                <div className="page-actions">
                  <AppLink to={`/moderation/reports/${report.id}`} className="btn btn-ghost btn-sm">
                    Photos and conversation
                  </AppLink>
                  <ModerationAction
                    intent="dismiss"
                    id={report.id}
                    label="Dismiss report"
                    busy={busy}
                  />
                  {report.reported.status === "active" ? (
                    <ModerationAction
                      intent="suspend"
                      id={report.reported.id}
                      label="Suspend account"
                      name={`Suspend @${report.reported.username}`}
                      danger
                      busy={busy}
                    />
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
        {meta.has_more || meta.page > 1 ? (
          <div className="load-more page-actions">
            {meta.page > 1 ? (
              <AppLink to={`?page=${meta.page - 1}`} className="btn btn-ghost">
                Previous
              </AppLink>
            ) : null}
            {meta.has_more ? (
              <AppLink to={`?page=${meta.page + 1}`} className="btn btn-ghost">
                Next
              </AppLink>
            ) : null}
          </div>
        ) : null}
        <section aria-labelledby="appeals" className="appeals">
          <h2 id="appeals" className="h3">
            Appeals
          </h2>
          <p className="muted small">
            Members hidden by reports or suspended may appeal once. Granting lifts the measure
            (hidden: their open reports are dismissed; suspended: the account is active again);
            denying keeps it, for good.
          </p>
          {appeals.length === 0 ? (
            <p className="empty-state">No open appeal.</p>
          ) : (
            <ul className="report-list" aria-label="Open appeals">
              {appeals.map((appeal) => (
                <li key={appeal.id} className="card report-item">
                  <ItemHead
                    username={appeal.member.username}
                    detail={<span className="muted small">{appeal.member.email}</span>}
                    badges={
                      <>
                        <span className="pill pill-warning">
                          {appeal.kind === "suspended" ? "Suspended" : "Hidden from search"}
                        </span>
                        {appeal.member.report_reasons.map((r) => (
                          <span key={r} className="pill">
                            {REPORT_REASON_LABELS[r]}
                          </span>
                        ))}
                      </>
                    }
                    aside={<TimeAgo iso={appeal.created_at} />}
                  />
                  <p className="bio">{appeal.text}</p>
                  <div className="page-actions">
                    <ModerationAction
                      intent="grant"
                      id={appeal.id}
                      label="Grant appeal"
                      name={`Grant the appeal of @${appeal.member.username}`}
                      busy={busy}
                    />
                    <ModerationAction
                      intent="deny"
                      id={appeal.id}
                      label="Deny appeal"
                      name={`Deny the appeal of @${appeal.member.username}`}
                      danger
                      busy={busy}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="verifications" className="verifications">
          <h2 id="verifications" className="h3">
            Photo verification
          </h2>
          <p className="muted small">
            Compare each selfie with the member&apos;s profile photos: the same person, live,
            copying the pose asked. The selfie is deleted once you decide.
          </p>
          {verifications.length === 0 ? (
            <p className="empty-state">No selfie waiting.</p>
          ) : (
            <ul className="report-list" aria-label="Selfies waiting">
              {verifications.map((v) => (
                <li key={v.id} className="card report-item" data-testid="verification-item">
                  <ItemHead
                    username={v.member.username}
                    detail={<p className="small">{`Pose asked: ${v.pose.instruction}`}</p>}
                    aside={<TimeAgo iso={v.created_at} />}
                  />
                  <div className="verification-compare">
                    <figure>
                      <img src={v.selfie_url} alt={`Selfie of @${v.member.username}`} width={160} />
                      <figcaption className="small muted">Selfie</figcaption>
                    </figure>
                    {v.member.photos.map((p, i) => (
                      <figure key={p.id}>
                        <img
                          src={p.url}
                          alt={`Profile photo ${i + 1} of @${v.member.username}`}
                          width={160}
                        />
                        <figcaption className="small muted">{`Profile photo ${i + 1}`}</figcaption>
                      </figure>
                    ))}
                  </div>
                  <div className="page-actions">
                    <ModerationAction
                      intent="approve"
                      id={v.id}
                      label="Approve"
                      name={`Approve the selfie of @${v.member.username}`}
                      busy={busy}
                    />
                    <RejectVerification id={v.id} username={v.member.username} busy={busy} />
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="in-review" className="in-review">
          <h2 id="in-review" className="h3">
            In review
          </h2>
          <p className="muted small">
            New accounts registered with the address of a member deleted after reports, or
            suspended. They work as any account until you clear or suspend them.
          </p>
          {reviews.length === 0 ? (
            <p className="empty-state">No account in review.</p>
          ) : (
            <ul className="report-list" aria-label="Accounts in review">
              {reviews.map((review) => (
                <li key={review.id} className="card report-item">
                  <ItemHead
                    username={review.username}
                    detail={<span className="muted small">{review.email}</span>}
                    badges={
                      <span className="pill pill-warning">
                        {review.reason === "suspended"
                          ? "Address of a suspended member"
                          : "Address of a member deleted after reports"}
                      </span>
                    }
                    aside={
                      <>
                        Joined <TimeAgo iso={review.created_at} />
                      </>
                    }
                  />
                  <div className="page-actions">
                    <ModerationAction
                      intent="clear"
                      id={review.id}
                      label="Clear"
                      name={`Clear @${review.username}`}
                      busy={busy}
                    />
                    <ModerationAction
                      intent="suspend"
                      id={review.id}
                      label="Suspend account"
                      name={`Suspend @${review.username}`}
                      danger
                      busy={busy}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="kept-evidence" className="kept-evidence">
          <h2 id="kept-evidence" className="h3">
            Kept after deletion
          </h2>
          <p className="muted small">
            Reports against members who deleted their account, with their profile and their
            conversation with the reporter as they stood then, and their photos as they stood at the
            report. Readable by moderators only, and erased on the date shown.
          </p>
          {evidence.length === 0 ? (
            <p className="empty-state">Nothing kept.</p>
          ) : (
            <ul className="report-list" aria-label="Kept after deletion">
              {evidence.map((kept) => (
                <li key={kept.id} className="card report-item">
                  <ItemHead
                    username={kept.profile.username}
                    detail={<span className="muted small">(deleted their account)</span>}
                    badges={
                      <>
                        <span className="pill">{REPORT_REASON_LABELS[kept.reason_type]}</span>
                        <span className="pill">{`Report ${kept.status}, weight ${kept.weight}`}</span>
                      </>
                    }
                    aside={`Kept ${kept.kept_at.slice(0, 10)}, erased ${kept.erase_after.slice(0, 10)}`}
                  />
                  {kept.details ? <p className="bio">{kept.details}</p> : null}
                  {kept.message_text !== null ? (
                    <blockquote className="report-message">
                      <span className="muted small">Reported message</span>
                      <p>{kept.message_text || "(deleted)"}</p>
                    </blockquote>
                  ) : null}
                  {kept.profile.bio ? <p className="bio">{kept.profile.bio}</p> : null}
                  {kept.photos.length ? (
                    <KeptPhotos photos={kept.photos} name={`@${kept.profile.username}`} />
                  ) : null}
                  {kept.conversation ? (
                    <details>
                      <summary>{`Their conversation (${kept.conversation.length} messages)`}</summary>
                      <KeptConversation
                        messages={kept.conversation}
                        reportedName={`@${kept.profile.username}`}
                      />
                    </details>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          {moreEvidence ? (
            <p className="muted small">More in GET /moderation/evidence?page=2.</p>
          ) : null}
        </section>
      </div>
    </AppShell>
  );
}
