import { desc } from "drizzle-orm";
import { z } from "zod";
import { getDb, nowIso, schema } from "./db.server";
import { readConfig, type Env } from "./env.server";
import { logFailure } from "./log.server";
import { count } from "./metrics.server";

export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Headers beyond From, To and Subject: a notification email's List-Unsubscribe (RFC 8058). */
  headers?: Record<string, string>;
}

/**
 * What the email queue carries (docs/decisions/027). `email` is a message already written;
 * `password_reset` is a request for a reset link whose address is looked up by the consumer, so
 * that the request that asked for it does the same work whether or not the address is a member's.
 */
export const mailJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("email"),
    email: z.object({
      to: z.string(),
      subject: z.string(),
      text: z.string(),
      html: z.string(),
      headers: z.record(z.string(), z.string()).optional(),
    }),
  }),
  z.object({ kind: z.literal("password_reset"), address: z.string(), origin: z.string() }),
]);
export type MailJob = z.infer<typeof mailJobSchema>;

/**
 * Hands a job to the email queue; the queue's consumer (worker/queue.ts) sends it and tries again
 * while the mail provider fails. Never throws: the request that queued it has usually already
 * changed something, and an email lost to a failing queue is logged and counted (`email_failed`)
 * for an operator rather than turned into a 5xx for the member.
 */
export async function queueMail(env: Env, job: MailJob): Promise<void> {
  try {
    await env.EMAIL_QUEUE.send(job, { contentType: "json" });
    count(env, "email_queued");
  } catch (error) {
    count(env, "email_failed");
    logFailure("email_queue", error, { kind: job.kind });
  }
}

/** Queues one email that is already written. */
export const queueEmail = (env: Env, email: Email) => queueMail(env, { kind: "email", email });

/**
 * Sends one email now: the queue's consumer is its only caller. Locally (MAIL_TRANSPORT=mailbox)
 * emails land in the dev mailbox that /dev/mailbox shows; in production they go to Resend's HTTP
 * API with the queue message's id as the idempotency key, so a message the queue delivers twice is
 * sent once. Throws when the provider refuses or cannot be reached: the consumer tries again.
 */
export async function sendMail(env: Env, email: Email, idempotencyKey: string): Promise<void> {
  const config = readConfig(env);
  if (config.mailTransport === "mailbox") {
    await getDb(env.DB)
      .insert(schema.devMailbox)
      .values({ ...email, headers: email.headers ?? null, sentAt: nowIso() });
    return;
  }
  if (!config.resendApiKey) throw new Error("RESEND_API_KEY is not set");
  await sendThroughResend(env, config, email, idempotencyKey);
  count(env, "email_sent");
}

/**
 * The mail provider refused or failed a send: its status, and how long it asked us to wait
 * (`Retry-After`, seconds) when it said so (a 429 over its rate limit).
 */
export class MailProviderError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfter: number | null,
  ) {
    super(`Mail delivery failed with status ${status}`);
  }
}

/** Resend's API; RESEND_API_BASE moves it to a local stand-in, outside production only. */
function resendBase(env: Env) {
  return env.RESEND_API_BASE && env.APP_ENV !== "production"
    ? env.RESEND_API_BASE
    : "https://api.resend.com";
}

async function sendThroughResend(
  env: Env,
  config: ReturnType<typeof readConfig>,
  email: Email,
  idempotencyKey: string,
) {
  const response = await fetch(`${resendBase(env)}/emails`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${config.resendApiKey ?? ""}`,
      "Content-Type": "application/json",
      "Idempotency-Key": idempotencyKey,
    },
    body: JSON.stringify({
      from: config.mailFrom,
      to: [email.to],
      subject: email.subject,
      text: email.text,
      html: email.html,
      ...(email.headers ? { headers: email.headers } : {}),
    }),
  });
  await response.body?.cancel();
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("Retry-After"));
    throw new MailProviderError(
      response.status,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    );
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
    headers: r.headers ?? {},
    sent_at: r.sentAt,
  }));
}
