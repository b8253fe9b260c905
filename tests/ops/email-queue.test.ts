import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MailJob } from "~/server/mail.server";
import worker from "../../worker/index";
import { MAX_RETRIES, retryDelay } from "../../worker/queue";
import type { SentEmail } from "../setup/mail-provider-stand-in";
import { emailsTo } from "../helpers/auth";
import { TestClient } from "../helpers/client";
import { latestEmailTo, registerMember, uniqueMember } from "../helpers/members";
import { fetchWith, PRODUCTION, recordingDataset } from "../helpers/worker";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The Worker sending through Resend's API, which the local stand-in answers for. */
function resendEnv(extra: Partial<Cloudflare.Env> = {}): Cloudflare.Env {
  return {
    ...env,
    MAIL_TRANSPORT: "resend",
    RESEND_API_KEY: "re_test_key_for_the_stand_in",
    RESEND_API_BASE: env.RESEND_TEST_BASE,
    ...extra,
  };
}

async function sentTo(address: string): Promise<SentEmail[]> {
  const url = new URL("/__emails", env.RESEND_TEST_BASE);
  url.searchParams.set("to", address);
  return (await (await fetch(url)).json()) as SentEmail[];
}

async function failNext(address: string, times: number, status = 503, retryAfter?: number) {
  await fetch(new URL("/__fail", env.RESEND_TEST_BASE), {
    method: "POST",
    body: JSON.stringify({ to: address, times, status, retry_after: retryAfter }),
  });
}

/** Delivers one message to the Worker's queue consumer, as the queue does. */
async function deliver(
  workerEnv: Cloudflare.Env,
  body: unknown,
  { id = crypto.randomUUID(), attempts = 1 } = {},
) {
  const batch = createMessageBatch("heartline-dev-email", [
    { id, timestamp: new Date(), attempts, body },
  ]);
  // The queue's result names the messages to try again, not the delay asked for: that is read
  // from the calls themselves.
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  const retryAll = vi.spyOn(batch, "retryAll");
  const ctx = createExecutionContext();
  await worker.queue(batch, workerEnv, ctx);
  const result = await getQueueResult(batch, ctx);
  const delays = [...retry.mock.calls, ...retryAll.mock.calls].map((c) => c[0]?.delaySeconds);
  return { ...result, delays };
}

function emailJob(to: string): MailJob {
  return {
    kind: "email",
    email: { to, subject: "Hello from the queue", text: "Plain words", html: "<p>Plain words</p>" },
  };
}

describe("the email queue's consumer", () => {
  it("sends a queued email through the mail provider, keyed by the message, once", async () => {
    const { dataset, counted } = recordingDataset();
    const to = uniqueMember("queued").email;
    const id = crypto.randomUUID();
    const first = await deliver(resendEnv({ METRICS: dataset }), emailJob(to), { id });
    expect(first.explicitAcks).toEqual([id]);
    expect(first.retryMessages).toEqual([]);
    const sent = await sentTo(to);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      from: env.MAIL_FROM,
      to: [to.toLowerCase()],
      subject: "Hello from the queue",
      text: "Plain words",
      html: "<p>Plain words</p>",
      idempotency_key: id,
    });
    expect(counted("email_sent")).toBe(1);

    // The queue delivers at least once: the same message again is not a second email.
    const again = await deliver(resendEnv(), emailJob(to), { id, attempts: 2 });
    expect(again.explicitAcks).toEqual([id]);
    expect(await sentTo(to)).toHaveLength(1);
  });

  it("tries again later while the provider fails, waiting longer each time, and loses nothing", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const { dataset, counted } = recordingDataset();
    const to = uniqueMember("outage").email;
    const id = crypto.randomUUID();
    await failNext(to, 2, 503);
    const workerEnv = resendEnv({ METRICS: dataset });

    const first = await deliver(workerEnv, emailJob(to), { id, attempts: 1 });
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toEqual([{ msgId: id }]);
    expect(first.delays).toEqual([30]);
    const second = await deliver(workerEnv, emailJob(to), { id, attempts: 2 });
    expect(second.retryMessages).toEqual([{ msgId: id }]);
    expect(second.delays).toEqual([60]);
    expect(await sentTo(to)).toHaveLength(0);
    expect(counted("email_failed")).toBe(2);

    // The provider is back: the third attempt sends it, once.
    const third = await deliver(workerEnv, emailJob(to), { id, attempts: 3 });
    expect(third.explicitAcks).toEqual([id]);
    expect(await sentTo(to)).toHaveLength(1);
    expect(counted("email_sent")).toBe(1);
    // Each failure was logged with what failed and how many attempts it had had.
    const lines = error.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
    expect(lines.filter((l) => l.what === "email_send").map((l) => l.attempts)).toEqual([1, 2]);
  });

  it("over the provider's rate limit (429), waits as long as it asks, then delivers once", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const to = uniqueMember("ratelimited").email;
    const id = crypto.randomUUID();
    await failNext(to, 1, 429, 2);
    const workerEnv = resendEnv();
    const first = await deliver(workerEnv, emailJob(to), { id, attempts: 1 });
    expect(first.retryMessages).toEqual([{ msgId: id }]);
    // Resend's Retry-After, not the 30 s of a failure.
    expect(first.delays).toEqual([2]);
    const second = await deliver(workerEnv, emailJob(to), { id, attempts: 2 });
    expect(second.explicitAcks).toEqual([id]);
    // The same message again (the queue delivers at least once): the idempotency key sends once.
    await deliver(workerEnv, emailJob(to), { id, attempts: 3 });
    expect(await sentTo(to)).toHaveLength(1);
  });

  it("a message failing past the last retry goes to the dead-letter queue, logged as such", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const to = uniqueMember("dead").email;
    const id = crypto.randomUUID();
    await failNext(to, 1, 500);
    const last = await deliver(resendEnv(), emailJob(to), { id, attempts: MAX_RETRIES + 1 });
    // Not acknowledged: the queue, past max_retries, moves it to the dead-letter queue.
    expect(last.explicitAcks).toEqual([]);
    expect(last.retryMessages).toEqual([{ msgId: id }]);
    const lines = error.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
    expect(lines.find((l) => l.what === "email_dead_lettered")).toMatchObject({
      kind: "email",
      attempts: MAX_RETRIES + 1,
      status: 500,
    });
    expect(await sentTo(to)).toHaveLength(0);
  });

  it("knows the consumer's max_retries as wrangler.toml sets it", async () => {
    const { default: config } = (await import("../../wrangler.toml?raw")) as { default: string };
    const retries = [...config.matchAll(/^max_retries = (\d+)$/gm)].map((m) => Number(m[1]));
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((n) => n === MAX_RETRIES)).toBe(true);
  });

  it("waits twice as long after each failure, never more than an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 10].map((n) => retryDelay(n))).toEqual([
      30, 60, 120, 240, 480, 960, 1920, 3600, 3600,
    ]);
  });

  it("drops a message that is not a job, and logs it", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const id = crypto.randomUUID();
    const result = await deliver(resendEnv(), { kind: "postcard", to: "x" }, { id });
    expect(result.explicitAcks).toEqual([id]);
    expect(result.retryMessages).toEqual([]);
    expect(String(error.mock.calls[0]?.[0])).toContain('"what":"email_job_unreadable"');
  });

  it("sends nothing from a production Worker refused for its configuration; the messages wait", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const to = uniqueMember("refused").email;
    const refused = { ...env, ...PRODUCTION, DEV_MAILBOX: "on" } as Cloudflare.Env;
    const result = await deliver(refused, emailJob(to));
    expect(result.retryBatch).toEqual({ retry: true });
    expect(result.delays).toEqual([3600]);
    expect(result.explicitAcks).toEqual([]);
    expect(await sentTo(to)).toHaveLength(0);
  });
});

describe("a password-reset job", () => {
  it("is looked up when it is sent: a member gets a working link, anyone else a note", async () => {
    const member = await registerMember();
    const unknown = uniqueMember("stranger").email;
    const origin = "https://heartline.example";
    await deliver(resendEnv(), { kind: "password_reset", address: member.details.email, origin });
    await deliver(resendEnv(), { kind: "password_reset", address: unknown, origin });

    const [link] = await sentTo(member.details.email);
    expect(link?.subject).toBe("Reset your password");
    expect(link?.text).toContain(`${origin}/reset-password/`);
    const token = /\/reset-password\/([^?\s]+)/.exec(link!.text!)![1]!;
    const reset = await new TestClient().json("POST", "/reset-password", {
      token,
      email: member.details.email,
      password: "a brand new passphrase",
      password_confirmation: "a brand new passphrase",
    });
    expect(reset.status).toBe(200);

    const [note] = await sentTo(unknown);
    expect(note?.text).toContain("no active account uses it");
    expect(note?.text).not.toContain("/reset-password/");
  });
});

describe("a request that sends an email", () => {
  /** Registers through the Worker with `overrides`, as a browser with a CSRF token would. */
  async function registerWith(overrides: Partial<Cloudflare.Env>) {
    const client = new TestClient();
    await client.loadCsrfFromPage();
    const details = uniqueMember("through");
    const res = await fetchWith(overrides, "/register", {
      method: "POST",
      ip: client.ip,
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRF-Token": client.csrfToken,
        Cookie: client.cookieHeader(),
      },
      body: JSON.stringify(details),
    });
    return { res, details };
  }

  it("never waits for the mail provider: with the provider unreachable, it still succeeds", async () => {
    const { res, details } = await registerWith({
      MAIL_TRANSPORT: "resend",
      RESEND_API_KEY: "re_test_unreachable",
      RESEND_API_BASE: "http://127.0.0.1:9",
    });
    expect(res.status).toBe(201);
    // The queue's consumer (here with the local mailbox) sends it after the answer.
    expect((await latestEmailTo(details.email))?.subject).toBe("Verify your email address");
  });

  it("succeeds when the queue itself fails, and the lost email is counted and logged", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const { dataset, counted } = recordingDataset();
    const failingQueue = {
      send: () => Promise.reject(new Error("Queue send failed: internal error")),
      sendBatch: () => Promise.reject(new Error("Queue send failed: internal error")),
    } as unknown as Queue;
    const { res, details } = await registerWith({ EMAIL_QUEUE: failingQueue, METRICS: dataset });
    expect(res.status).toBe(201);
    expect(counted("email_failed")).toBe(1);
    expect(counted("email_queued")).toBe(0);
    const logged = error.mock.calls.map((c) => String(c[0])).find((l) => l.includes("email_queue"));
    expect(logged).toContain("Queue send failed");
    expect(await emailsTo(details.email)).toHaveLength(0);
  });
});
