import { sql } from "drizzle-orm";
import { displayName } from "~/lib/members";
import type { AppealKind, RejectReason } from "~/schemas/verification";
import { REJECT_REASONS } from "~/schemas/verification";
import type { AccountNoticeInput } from "./notifications.server";
import { appealDecisionEmail, verificationDecisionEmail } from "./emails.server";
import type { Env } from "./env.server";
import { logFailure } from "./log.server";
import { queueEmail, type Email } from "./mail.server";
import { notifyAccount } from "./notifications.server";
import { first } from "./sql.server";

/**
 * Telling a member what a moderator decided about their own account (docs/decisions/049): their
 * photo verification approved or rejected, their appeal granted or denied. Each decision is told
 * twice, once: an account notice on the bell (no switch turns it off; never pushed) that leads to
 * the member's page, and an account email, sent whatever the member's switches, like the
 * password emails. Nothing names the moderator. The decision is stored before this runs and
 * stands whatever happens here: a notice that cannot be written is logged, and the email queue
 * never fails its caller.
 */

/** The member as the notice and the email address them. */
async function recipient(env: Env, userId: string) {
  return first<{ email: string; username: string; first_name: string | null }>(
    env.DB,
    sql`SELECT u.email, u.username, p.first_name FROM users u
        LEFT JOIN profiles p ON p.user_id = u.id WHERE u.id = ${userId}`,
  );
}

/** The address links in the email open: APP_ORIGIN, else the app's address the decision came to. */
const pageUrl = (env: Env, origin: string, path: string) =>
  new URL(path, env.APP_ORIGIN ?? origin).toString();

async function tell(
  env: Env,
  userId: string,
  notice: Omit<AccountNoticeInput, "to">,
  email: (to: string, name: string) => Email,
): Promise<void> {
  const member = await recipient(env, userId);
  if (!member) return;
  try {
    await notifyAccount(env, { to: userId, ...notice });
  } catch (error) {
    logFailure("account_notice", error, { user_id: userId, type: notice.type });
  }
  const name = displayName({ firstName: member.first_name, username: member.username });
  await queueEmail(env, email(member.email, name));
}

/** A photo verification decided: verified, or rejected with the reason the member is told. */
export async function tellVerificationDecision(
  env: Env,
  userId: string,
  decision: { verified: true } | { verified: false; reason: RejectReason },
  origin: string,
): Promise<void> {
  const url = pageUrl(env, origin, "/my/verification");
  await tell(
    env,
    userId,
    {
      type: "verification",
      data: decision.verified
        ? { status: "verified" }
        : { status: "rejected", reason: decision.reason },
    },
    (to, name) =>
      verificationDecisionEmail(
        to,
        name,
        decision.verified
          ? { verified: true }
          : { verified: false, reason: REJECT_REASONS[decision.reason] },
        url,
      ),
  );
}

/** An appeal of a measure decided: granted (the measure lifted) or denied (it stays). */
export async function tellAppealDecision(
  env: Env,
  userId: string,
  appeal: { measure: AppealKind; granted: boolean },
  origin: string,
): Promise<void> {
  const url = pageUrl(env, origin, "/my/appeal");
  await tell(
    env,
    userId,
    {
      type: "appeal",
      data: { measure: appeal.measure, decision: appeal.granted ? "granted" : "denied" },
    },
    (to, name) => appealDecisionEmail(to, name, appeal, url),
  );
}
