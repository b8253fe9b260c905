import { describe, expect, it } from "vitest";
import { conversationPair } from "../chat/helpers";
import { eventually } from "../../scripts/lib/wait";

/**
 * Issue 12, finding 4: once its sender deletes a message, its text is gone from every page the
 * other member has: the notification it raised (`data.preview`), the notifications page and the
 * account export.
 */
describe("a deleted message", () => {
  it("leaves no text in the recipient's notifications, notifications page or export", async () => {
    const { alice, bob, id } = await conversationPair();
    const secret = `meet me at the old mill ${Math.random().toString(36).slice(2)}`;
    const sent = await alice.client.json<{ message: { id: string } }>(
      "POST",
      `/chat/conversations/${id}/messages`,
      { message: secret },
    );
    expect(sent.status).toBe(201);
    // The notification is written just after the send answers: wait for it.
    const before = await eventually(
      async () => {
        const text = JSON.stringify((await bob.client.json("GET", "/notifications")).body);
        return text.includes(secret) && text;
      },
      { timeoutMs: 2000, intervalMs: 50, what: "the message's notification" },
    );
    expect(before).toContain(secret);

    const deleted = await alice.client.json("DELETE", `/chat/messages/${sent.body.message.id}`);
    expect(deleted.status).toBe(204);

    const after = await bob.client.json<{ notifications: { data: Record<string, unknown> }[] }>(
      "GET",
      "/notifications",
    );
    expect(after.status).toBe(200);
    expect(JSON.stringify(after.body)).not.toContain(secret);
    // The notification itself stays ("New message from …"), without the text.
    const note = after.body.notifications.find((n) => n.data.message_id === sent.body.message.id);
    expect(note).toBeDefined();
    expect(note!.data.preview).toBeUndefined();

    const page = await bob.client.fetch("/notifications", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(secret);

    const exported = await bob.client.fetch("/my/export");
    expect(exported.status).toBe(200);
    expect(await exported.text()).not.toContain(secret);
  });
});
