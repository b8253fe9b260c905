import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { NotificationSettings } from "~/schemas/notifications";
import { unsubscribeToken } from "~/server/digest.server";
import type { MemberHub } from "../../durable-objects/member-hub";
import { conversationPair, sent, type Member } from "../chat/helpers";
import { mailboxOf, verifiedMember } from "../helpers/members";
import { openSocket } from "../helpers/sockets";

/**
 * The email digest of a member who is away (docs/api.md "Away from the app", docs/decisions/034).
 * The member's hub schedules it AWAY_EMAIL_DELAY_SECONDS (an hour) after the first thing the
 * member has not seen; these tests bring that moment forward in the hub's storage and run its
 * alarm, then read the local mailbox the email queue delivers to.
 */

const hubOf = (userId: string) => env.MEMBER_HUB.get(env.MEMBER_HUB.idFromName(userId));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface DigestState {
  due: number | null;
  last: number | null;
}

const digestState = (userId: string) =>
  runInDurableObject(hubOf(userId), (_hub: MemberHub, state) =>
    state.storage.get<DigestState>("away:digest"),
  );

/** Makes the member's digest due now and runs their hub's alarm. */
async function digestNow(userId: string) {
  await runInDurableObject(hubOf(userId), async (_hub: MemberHub, state) => {
    const digest = await state.storage.get<DigestState>("away:digest");
    await state.storage.put("away:digest", { last: null, ...digest, due: Date.now() - 1 });
    await state.storage.setAlarm(Date.now());
  });
  await runDurableObjectAlarm(hubOf(userId));
}

/** The member opened a page once (the hub learns the origin of their pages) and left. */
async function visitedAndLeft(m: Member) {
  const res = await openSocket(m.client, "/ws/me");
  res.socket!.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const like = (from: Member, to: Member) =>
  from.client.json("POST", "/my/likes", { user_id: to.id });

async function emailsOf(m: Member) {
  return (await mailboxOf(m.details.email, 0)).filter((e) => e.subject.includes("away"));
}

async function waitForDigest(m: Member) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const digests = await emailsOf(m);
    if (digests.length > 0 || Date.now() > deadline) return digests;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the email digest", () => {
  it("tells a member away of unread messages and likes, an hour after the first, with one-click unsubscribe", async () => {
    const { alice, bob, id } = await conversationPair();
    const carol = await verifiedMember();
    await visitedAndLeft(bob);
    const before = Date.now();
    await sent(alice.client, id, "hello?");
    await sent(alice.client, id, "are you there?");
    expect((await like(carol, bob)).status).toBe(201);

    // Due an hour after the first thing Bob has not seen.
    const state = await digestState(bob.id);
    expect(state?.due).toBeGreaterThanOrEqual(before + HOUR);
    expect(state!.due!).toBeLessThan(Date.now() + HOUR);

    await digestNow(bob.id);
    const [digest] = await waitForDigest(bob);
    expect(digest).toBeDefined();
    expect(digest!.text).toContain(`2 unread messages from ${alice.details.username}`);
    expect(digest!.text).toContain(`${carol.details.username} liked you`);
    expect(digest!.html).toContain("Stop these emails");
    const headers = JSON.parse(digest!.headers!) as Record<string, string>;
    expect(headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    const url = /^<(.+)>$/.exec(headers["List-Unsubscribe"]!)![1]!;
    expect(url).toBe(
      `http://localhost/email/unsubscribe?token=${encodeURIComponent(await unsubscribeToken(env, bob.id))}`,
    );
    // The link is in the email's text too.
    expect(digest!.text).toContain(url);

    // The next one waits for the interval, a day after this one.
    await sent(alice.client, id, "hello again");
    const next = await digestState(bob.id);
    expect(next!.last).not.toBeNull();
    expect(next!.due).toBeGreaterThanOrEqual(next!.last! + DAY);
  });

  it("the unsubscribe link works signed out: GET shows a page, a mail client's one-click POST turns the digest off", async () => {
    const { alice, bob, id } = await conversationPair();
    await visitedAndLeft(bob);
    const url = `http://localhost/email/unsubscribe?token=${encodeURIComponent(await unsubscribeToken(env, bob.id))}`;

    const page = await SELF.fetch(url, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Unsubscribe");
    expect(page.headers.get("Cache-Control")).toContain("no-store");

    // RFC 8058: the mail provider POSTs this body to the URL, with no cookie and no CSRF token.
    const oneClick = await SELF.fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    await oneClick.body?.cancel();
    const prefs = await bob.client.json<NotificationSettings>(
      "GET",
      "/my/notification-preferences",
    );
    for (const kind of Object.values(prefs.body.preferences)) {
      expect(kind.email).toBe(false);
    }
    // In-app and push stay as they were.
    expect(prefs.body.preferences.message).toMatchObject({ in_app: true, push: true });

    await sent(alice.client, id, "ping");
    await digestNow(bob.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await emailsOf(bob)).toEqual([]);
  });

  it("the page's button unsubscribes and comes back to the page, which says so", async () => {
    const bob = await verifiedMember();
    const token = await unsubscribeToken(env, bob.id);
    const res = await SELF.fetch(
      `http://localhost/email/unsubscribe?token=${encodeURIComponent(token)}`,
      {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "page=1",
        redirect: "manual",
      },
    );
    expect(res.status).toBe(303);
    const back = res.headers.get("Location")!;
    expect(back).toBe(`/email/unsubscribe?token=${encodeURIComponent(token)}&done=1`);
    const page = await SELF.fetch(`http://localhost${back}`, { headers: { Accept: "text/html" } });
    expect(await page.text()).toContain("You are unsubscribed");
    const prefs = await bob.client.json<NotificationSettings>(
      "GET",
      "/my/notification-preferences",
    );
    expect(prefs.body.preferences.like.email).toBe(false);
  });

  it("a token that is not ours changes nothing", async () => {
    const bob = await verifiedMember();
    const forged = `${bob.id}.${"A".repeat(43)}`;
    for (const token of [forged, "", "nonsense", `${bob.id}.`]) {
      const url = `http://localhost/email/unsubscribe?token=${encodeURIComponent(token)}`;
      const get = await SELF.fetch(url, { headers: { Accept: "text/html" } });
      expect(get.status).toBe(400);
      await get.body?.cancel();
      const post = await SELF.fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      expect(post.status).toBe(400);
      await post.body?.cancel();
    }
    const prefs = await bob.client.json<NotificationSettings>(
      "GET",
      "/my/notification-preferences",
    );
    expect(prefs.body.preferences.message.email).toBe(true);
  });

  it("coming back before it is due cancels it; nothing unseen sends nothing", async () => {
    const { alice, bob, id } = await conversationPair();
    await visitedAndLeft(bob);
    await sent(alice.client, id, "hi");
    expect((await digestState(bob.id))?.due).not.toBeNull();
    const res = await openSocket(bob.client, "/ws/me");
    expect((await digestState(bob.id))?.due).toBeNull();
    res.socket!.close();

    // A digest made due while everything was read tells nothing and is not sent.
    await bob.client.json("GET", `/chat/conversations/${id}/messages`);
    await bob.client.json("POST", `/chat/conversations/${id}/read`);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await digestNow(bob.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await emailsOf(bob)).toEqual([]);
  });

  it("leaves out the kinds turned off for email", async () => {
    const { alice, bob, id } = await conversationPair();
    const carol = await verifiedMember();
    await visitedAndLeft(bob);
    const res = await bob.client.json("PUT", "/my/notification-preferences", {
      preferences: { like: { email: false } },
    });
    expect(res.status).toBe(200);
    await sent(alice.client, id, "hello");
    await like(carol, bob);
    await digestNow(bob.id);
    const [digest] = await waitForDigest(bob);
    expect(digest!.text).toContain(`1 unread message from ${alice.details.username}`);
    expect(digest!.text).not.toContain("liked you");
  });

  it("tells of a kind the member keeps off the bell but wants by email", async () => {
    const bob = await verifiedMember();
    const carol = await verifiedMember();
    await visitedAndLeft(bob);
    const res = await bob.client.json("PUT", "/my/notification-preferences", {
      preferences: { like: { in_app: false, push: false, email: true } },
    });
    expect(res.status).toBe(200);
    expect((await like(carol, bob)).status).toBe(201);
    expect((await digestState(bob.id))?.due).toEqual(expect.any(Number));
    await digestNow(bob.id);
    const [digest] = await waitForDigest(bob);
    expect(digest!.text).toContain(`${carol.details.username} liked you`);
  });
});
