import * as Sentry from "@sentry/cloudflare";
import { count } from "~/server/metrics.server";
import { configRefusal, type Env } from "~/server/env.server";
import {
  DEFAULT_LIMITS,
  HOUSEKEEPING_JOBS,
  type Job,
  type Limits,
} from "~/server/housekeeping.server";
import { log, loggedError } from "~/server/log.server";
import { CLEAN_STORED_PHOTOS } from "~/server/photos.server";
import { SWEEP_CHAT_ATTACHMENTS } from "~/server/chat-attachments.server";
import { FILL_PLACE_COORDINATES } from "~/server/places.server";
import { END_LAPSED_TRAVEL } from "~/server/travel.server";
import { endedConversationsJob, reportPhotosJob } from "~/server/evidence.server";
import { TEST_PROVIDER_RENEWALS } from "~/server/plan-changes.server";
import { SEARCH_TEXT_REBUILD } from "~/server/search/text-rebuild.server";

/**
 * Background work's one entry (wrangler.toml [triggers] crons): a small dispatcher. Each job is
 * run in turn with the trigger's time as "now" (a test controls the clock through
 * `scheduledTime`); one that fails is logged and counted, and the others still run. A job of
 * another concern joins by being added to `JOBS`.
 */
const JOBS: Job[] = [
  // Before housekeeping's subscriptions_expired, so that a renewal is never taken for an end.
  TEST_PROVIDER_RENEWALS,
  ...HOUSEKEEPING_JOBS,
  CLEAN_STORED_PHOTOS,
  FILL_PLACE_COORDINATES,
  END_LAPSED_TRAVEL,
  endedConversationsJob,
  // After housekeeping's report_evidence: a report's kept photos go in the run that erases it.
  reportPhotosJob,
  SWEEP_CHAT_ATTACHMENTS,
  // Last: it may take its whole time budget while a rebuild is under way (docs/decisions/050).
  SEARCH_TEXT_REBUILD,
];

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const problems = configRefusal(env);
  if (problems.length > 0) {
    log({ event: "config_refused", level: "error", problems });
    return;
  }
  const now = controller.scheduledTime;
  const limits = limitsOf(env);
  for (const job of JOBS) {
    try {
      const result = await job.run(env, now, limits);
      log({ event: "housekeeping", level: "info", job: job.name, ...result });
    } catch (error) {
      count(env, "housekeeping_failed");
      if (env.SENTRY_DSN) Sentry.captureException(error, { tags: { job: job.name } });
      log({
        event: "housekeeping_failed",
        level: "error",
        job: job.name,
        error: loggedError(error),
      });
    }
  }
}

/**
 * HOUSEKEEPING_BATCH is "rows per statement/statements per job" (wrangler.toml [vars]), both at
 * least 1: a batch of 0 rows would run every statement and delete nothing.
 */
function limitsOf(env: Env): Limits {
  const match = /^([1-9]\d*)\/([1-9]\d*)$/.exec(env.HOUSEKEEPING_BATCH ?? "");
  if (!match) return DEFAULT_LIMITS;
  return { batchSize: Number(match[1]), maxBatches: Number(match[2]) };
}
