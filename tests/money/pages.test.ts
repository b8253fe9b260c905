import { describe, expect, it } from "vitest";
import { conversationPair, send } from "../chat/helpers";
import { TestClient } from "../helpers/client";
import { titleOf } from "../helpers/auth";
import { buyPack, subscribeTo, verifiedMember } from "./helpers";

const html = async (client: TestClient, path: string) => {
  const res = await client.fetch(path, { headers: { Accept: "text/html" } });
  // React separates adjacent text with <!-- --> in server HTML.
  const text = (await res.text()).replaceAll("<!-- -->", "");
  return { status: res.status, text, location: res.headers.get("Location") };
};

describe("money pages", () => {
  it("the credits page shows the balance, the packs with prices, transactions and says payments are test payments", async () => {
    const { client } = await verifiedMember();
    await buyPack(client, "value");
    const page = await html(client, "/my/credits");
    expect(page.status).toBe(200);
    expect(titleOf(page.text)).toBe("Credits - Heartline");
    expect(page.text).toContain('data-testid="balance">300<');
    for (const price of ["$4.99", "$9.99", "$19.99", "$44.99"]) expect(page.text).toContain(price);
    expect(page.text).toContain("Credits bought");
    expect(page.text).toContain("Test payments");
  });

  it("the success page shows the new balance only for a completed payment; the cancel page says nothing was charged", async () => {
    const { client } = await verifiedMember();
    const res = await client.json<{ payment_id: string }>("POST", "/my/credits/purchase", {
      pack_id: "starter",
      return_to: "/chat/abc",
    });
    const ok = await html(
      client,
      `/my/credits/success?payment=${res.body.payment_id}&return_to=/chat/abc`,
    );
    expect(ok.text).toContain("50 credits were added");
    expect(ok.text).toContain('data-testid="balance">50<');
    expect(ok.text).toContain("Back to the conversation");
    // Someone else's payment id shows nothing of it.
    const other = await verifiedMember();
    const theirs = await html(other.client, `/my/credits/success?payment=${res.body.payment_id}`);
    expect(theirs.text).toContain("No payment found");
    expect(theirs.text).not.toContain('data-testid="balance"');
    // return_to never leaves the site.
    const evil = await html(client, "/my/credits/cancel?return_to=//evil.example");
    expect(evil.text).toContain("Nothing was charged");
    expect(evil.text).not.toContain("evil.example");
    expect((await html(client, "/my/subscription/cancel")).text).toContain("Nothing was charged");
  });

  it("the subscription page shows the plans side by side, the status and the cancel button", async () => {
    const { client } = await verifiedMember();
    const free = await html(client, "/my/subscription");
    expect(free.text).toContain("You are on the free plan");
    for (const text of [
      "Plus",
      "Premium",
      "$9.99",
      "$79.99",
      "$19.99",
      "$159.99",
      "Incognito browsing",
    ])
      expect(free.text).toContain(text);
    await subscribeTo(client, "premium");
    const mine = await html(client, "/my/subscription");
    expect(mine.text).toContain('data-testid="subscription-status">Active<');
    expect(mine.text).toContain("Cancel subscription");
    expect((await html(client, "/my/subscription/success?started=1")).text).toContain(
      "Welcome to Premium!",
    );
  });

  it("the gifts page lists gifts received and sent with who, when and the price", async () => {
    const { alice, bob, id } = await conversationPair();
    await buyPack(alice.client, "starter");
    expect((await send(alice.client, id, "", { gift_id: "coffee" })).status).toBe(201);
    const sent = await html(alice.client, "/my/gifts?list=sent");
    expect(sent.text).toMatch(/<strong>Coffee<\/strong> to/);
    expect(sent.text).toContain(bob.details.username);
    expect(sent.text).toContain("10 credits");
    const received = await html(bob.client, "/my/gifts");
    expect(received.text).toMatch(/<strong>Coffee<\/strong> from/);
    expect(received.text).toContain(alice.details.username);
    expect(received.text).toContain("<time");
    expect((await html(bob.client, "/my/gifts?list=sent")).text).toContain(
      "You have not sent a gift yet.",
    );
  });

  it("signed out, the pages send the visitor to sign in", async () => {
    const page = await html(new TestClient(), "/my/credits");
    expect(page.status).toBe(302);
    expect(page.location).toContain("/login");
  });
});
