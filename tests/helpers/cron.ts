import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import worker from "../../worker/index";

/**
 * Runs the Worker's Cron Trigger once, as Cloudflare would, with the trigger's time as the clock
 * (`scheduledTime`) and the test environment, optionally with some settings changed.
 */
export async function runCron(scheduledTime: number, overrides: Partial<Cloudflare.Env> = {}) {
  const controller = createScheduledController({ scheduledTime, cron: "*/15 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
}
