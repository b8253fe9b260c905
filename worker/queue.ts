import * as Sentry from "@sentry/cloudflare";
import { passwordResetMail } from "~/server/auth.server";
import { configRefusal, type Env } from "~/server/env.server";
import { logFailure } from "~/server/log.server";
import { MailProviderError, mailJobSchema, sendMail, type MailJob } from "~/server/mail.server";
import { count } from "~/server/metrics.server";

/** The first retry waits this long; each later one twice the one before, up to `MAX_DELAY_S`. */
const FIRST_DELAY_S = 30;
const MAX_DELAY_S = 3600;

/** The consumer's `max_retries` (wrangler.toml): a message failing past it goes to the dead-letter queue. */
export const MAX_RETRIES = 10;

/**
 * Seconds before the `attempts`-th failed delivery of a message is tried again: what the provider
 * asked for (`Retry-After` of a 429), else twice as long after each failure.
 */
export function retryDelay(attempts: number, retryAfter: number | null = null): number {
  if (retryAfter !== null) return Math.min(Math.max(1, Math.ceil(retryAfter)), MAX_DELAY_S);
  return Math.min(FIRST_DELAY_S * 2 ** Math.max(0, attempts - 1), MAX_DELAY_S);
}

/**
 * The email queue's consumer (wrangler.toml [[queues.consumers]], docs/decisions/027). Each
 * message is one email: sent and acknowledged, or, while the mail provider fails, tried again later
 * with a growing delay; past the consumer's `max_retries` the queue moves it to the dead-letter
 * queue, where nothing is lost and an operator can send it again (docs/runbook.md). A message that
 * is not a job at all is logged and dropped: trying it again cannot help.
 */
export async function queue(batch: MessageBatch, env: Env): Promise<void> {
  if (configRefusal(env).length > 0) {
    // A production Worker with development settings sends nothing; the messages wait.
    batch.retryAll({ delaySeconds: MAX_DELAY_S });
    return;
  }
  for (const message of batch.messages) {
    const job = mailJobSchema.safeParse(message.body);
    if (!job.success) {
      logFailure("email_job_unreadable", job.error, { queue: batch.queue });
      message.ack();
      continue;
    }
    try {
      await sendMail(env, await emailOf(env, job.data), message.id);
      message.ack();
    } catch (error) {
      count(env, "email_failed");
      if (env.SENTRY_DSN) Sentry.captureException(error, { tags: { job: job.data.kind } });
      const lastAttempt = message.attempts > MAX_RETRIES;
      logFailure(lastAttempt ? "email_dead_lettered" : "email_send", error, {
        kind: job.data.kind,
        attempts: message.attempts,
        status: error instanceof MailProviderError ? error.status : undefined,
      });
      // Past the last retry the queue moves it to the dead-letter queue (docs/runbook.md).
      const retryAfter = error instanceof MailProviderError ? error.retryAfter : null;
      message.retry({ delaySeconds: retryDelay(message.attempts, retryAfter) });
    }
  }
}

function emailOf(env: Env, job: MailJob) {
  switch (job.kind) {
    case "email":
      return job.email;
    case "password_reset":
      return passwordResetMail(env, job.address, job.origin);
  }
}
