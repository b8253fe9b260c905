import { desc } from "drizzle-orm";
import { getDb, nowIso, schema } from "./db.server";
import { readConfig, type Env } from "./env.server";
import { count } from "./metrics.server";

export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * The one place email leaves the application. Locally (MAIL_TRANSPORT=mailbox) emails land in the
 * dev mailbox that /dev/mailbox shows; in production they go to Resend's HTTP API.
 */
export async function sendMail(env: Env, email: Email): Promise<void> {
  const config = readConfig(env);
  if (config.mailTransport === "mailbox") {
    await getDb(env.DB)
      .insert(schema.devMailbox)
      .values({ ...email, sentAt: nowIso() });
    return;
  }
  if (!config.resendApiKey) throw new Error("RESEND_API_KEY is not set");
  try {
    await sendThroughResend(config, email);
  } catch (error) {
    count(env, "email_failed");
    throw error;
  }
  count(env, "email_sent");
}

async function sendThroughResend(config: ReturnType<typeof readConfig>, email: Email) {
  const response = await fetch("https://api.resend.com/emails", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${config.resendApiKey ?? ""}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({
      from: config.mailFrom,
      to: [email.to],
      subject: email.subject,
      text: email.text,
      html: email.html,
    }),
  });
  if (!response.ok) {
    throw new Error(`Mail delivery failed with status ${response.status}`);
  }
}

export async function readMailbox(env: Env, limit = 50) {
  const rows = await getDb(env.DB)
    .select()
    .from(schema.devMailbox)
    .orderBy(desc(schema.devMailbox.id))
    .limit(limit);
  return rows.map((r) => ({
    to: r.to,
    subject: r.subject,
    text: r.text,
    html: r.html,
    sent_at: r.sentAt,
  }));
}
