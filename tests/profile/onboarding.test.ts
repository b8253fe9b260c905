import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";
import { titleOf } from "../helpers/auth";
import { imageBytes, upload } from "./fixtures";

const html = { headers: { Accept: "text/html" } };

const pendingMember = () => verifiedMember({}, { onboarding: "pending" });

async function onboardingOf(id: string) {
  return (
    await env.DB.prepare("SELECT onboarding FROM users WHERE id = ?1")
      .bind(id)
      .first<{ onboarding: string }>()
  )?.onboarding;
}

async function profileOf(client: TestClient) {
  const res = await client.json<{ profile: Record<string, unknown> }>("GET", "/my/profile");
  return res.body.profile;
}

/** Saves one onboarding step as its page does: the step's fields as JSON in a form post. */
function saveStep(client: TestClient, step: string, fields: Record<string, unknown>) {
  return client.form(`/onboarding?step=${step}`, { step, payload: JSON.stringify(fields) });
}

async function page(client: TestClient, path: string) {
  const res = await client.fetch(path, html);
  // React separates adjacent texts with empty comments: read the page as a member would.
  const text = (await res.text()).replaceAll("<!-- -->", "");
  return { status: res.status, location: res.headers.get("Location"), html: text };
}

describe("onboarding", () => {
  it("leads a just-verified member from the dashboard and Discover to the first step", async () => {
    const member = await pendingMember();
    expect(await onboardingOf(member.id)).toBe("pending");
    for (const path of ["/dashboard", "/my/matches"]) {
      const res = await page(member.client, path);
      expect(res.status, path).toBe(302);
      expect(res.location, path).toBe("/onboarding");
    }
    const first = await page(member.client, "/onboarding");
    expect(first.status).toBe(200);
    expect(titleOf(first.html)).toBe("Welcome to Heartline - Heartline");
    expect(first.html).toContain("0 of 4 steps done");
    expect(first.html).toContain("Show your best side");
    // Greeted by username until they give a first name.
    expect(first.html).toContain(`Hi ${member.details.username}!`);
  });

  it("saves each step's own fields, even while the rest of the profile is empty", async () => {
    const member = await pendingMember();
    const about = await saveStep(member.client, "about", {
      firstName: "Maya",
      bio: "Trail runner, bad at karaoke.",
    });
    expect(about.status).toBe(302);
    expect(about.headers.get("Location")).toBe("/onboarding?step=interests");
    const profile = await profileOf(member.client);
    expect(profile).toMatchObject({
      firstName: "Maya",
      bio: "Trail runner, bad at karaoke.",
      interests: [],
      preferences: [],
    });
    // The member is greeted by first name from now on.
    const next = await page(member.client, "/onboarding?step=interests");
    expect(next.html).toContain("1 of 4 steps done");
    const review = await page(member.client, "/onboarding?step=review");
    expect(review.html).toContain("Almost there, Maya");
  });

  it("answers a bad step with docs/domain.md's messages and changes nothing", async () => {
    const member = await pendingMember();
    const empty = await saveStep(member.client, "about", { firstName: "Maya", bio: "  " });
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain("The bio field is required.");
    const none = await saveStep(member.client, "interests", { interests: [] });
    expect(none.status).toBe(422);
    expect(await none.text()).toContain("Please input at least one item");
    const ages = await saveStep(member.client, "looking-for", {
      preferences: ["New friends"],
      ageRange: { min: 40, max: 30 },
    });
    expect(ages.status).toBe(422);
    expect(await ages.text()).toContain("Minimum age must be less than maximum age");
    const unknown = await saveStep(member.client, "username", { username: "taken_over" });
    expect(unknown.status).toBe(422);
    const broken = await member.client.form("/onboarding?step=about", {
      step: "about",
      payload: "{",
    });
    expect(broken.status).toBe(422);
    expect(await profileOf(member.client)).toMatchObject({
      firstName: null,
      bio: "",
      interests: [],
      preferences: [],
      username: member.details.username,
    });
    expect(await onboardingOf(member.id)).toBe("pending");
  });

  it("can be skipped knowingly: discovery opens, with a reminder until the member finishes", async () => {
    const member = await pendingMember();
    const review = await page(member.client, "/onboarding?step=review");
    expect(review.html).toContain("Skip for now");
    expect(review.html).toContain("4 steps are");
    const skip = await member.client.form("/onboarding", { intent: "skip" });
    expect(skip.status).toBe(302);
    expect(skip.headers.get("Location")).toBe("/dashboard");
    expect(await onboardingOf(member.id)).toBe("skipped");
    const dashboard = await page(member.client, "/dashboard");
    expect(dashboard.status).toBe(200);
    expect(dashboard.html).toContain("Finish your profile");
    expect(dashboard.html).toContain('href="/onboarding"');
    // The steps are still there to finish.
    expect((await page(member.client, "/onboarding")).status).toBe(200);
  });

  it("is done once every step is, and then never shows again", async () => {
    const member = await pendingMember();
    const up = await upload(member.client, [{ bytes: imageBytes("png") }]);
    expect(up.status).toBe(201);
    expect((await saveStep(member.client, "about", { firstName: "Noor", bio: "Hi!" })).status).toBe(
      302,
    );
    expect((await saveStep(member.client, "interests", { interests: ["Jazz"] })).status).toBe(302);
    const last = await saveStep(member.client, "looking-for", {
      preferences: ["Long-term relationship"],
      ageRange: { min: 25, max: 40 },
    });
    expect(last.headers.get("Location")).toBe("/onboarding?step=review");
    expect(await onboardingOf(member.id)).toBe("done");
    const finished = await page(member.client, "/onboarding?step=review");
    expect(finished.html).toContain("You are all set, Noor!");

    for (const path of ["/onboarding", "/onboarding?step=photos"]) {
      const again = await page(member.client, path);
      expect(again.status, path).toBe(302);
      expect(again.location, path).toBe("/dashboard");
    }
    const dashboard = await page(member.client, "/dashboard");
    expect(dashboard.status).toBe(200);
    expect(dashboard.html).not.toContain("Finish your profile");
    // Skipping after finishing changes nothing.
    await member.client.form("/onboarding", { intent: "skip" });
    expect(await onboardingOf(member.id)).toBe("done");
  });

  it("counts a profile completed in the settings, and leaves members from before it alone", async () => {
    const member = await pendingMember();
    await upload(member.client, [{ bytes: imageBytes("png") }]);
    const put = await member.client.json("PUT", "/my/profile", {
      bio: "Filled in from the settings.",
      interests: ["Art"],
      preferences: ["New friends"],
    });
    expect(put.status).toBe(200);
    const res = await page(member.client, "/onboarding");
    expect(res.status).toBe(302);
    expect(res.location).toBe("/dashboard");
    expect(await onboardingOf(member.id)).toBe("done");

    // A row written without the column (as before the migration) is done.
    const id = `old${Date.now().toString(36)}`;
    await env.DB.prepare(
      "INSERT INTO users (id, username, email, password_hash) VALUES (?1, ?1, ?2, 'x')",
    )
      .bind(id, `${id}@example.test`)
      .run();
    expect(await onboardingOf(id)).toBe("done");
  });

  it("offers an optional prompts step on the review, which saves answers or is skipped", async () => {
    const member = await pendingMember();
    await upload(member.client, [{ bytes: imageBytes("png") }]);
    await saveStep(member.client, "about", { firstName: "Noor", bio: "Hi!" });
    await saveStep(member.client, "interests", { interests: ["Jazz"] });
    await saveStep(member.client, "looking-for", { preferences: ["New friends"] });
    expect(await onboardingOf(member.id)).toBe("done");

    const review = await page(member.client, "/onboarding?step=review");
    expect(review.html).toContain('href="/onboarding?step=prompts"');
    // Open after onboarding is done, and "Not now" goes back to the review.
    const step = await page(member.client, "/onboarding?step=prompts");
    expect(step.status).toBe(200);
    expect(step.html).toContain("Give them something to answer");
    expect(step.html).toContain('href="/onboarding?step=review"');

    const bad = await saveStep(member.client, "prompts", {
      prompts: [{ prompt_id: "weekend-plan", answer: " " }],
    });
    expect(bad.status).toBe(422);
    expect((await profileOf(member.client)).prompts).toEqual([]);

    const saved = await saveStep(member.client, "prompts", {
      prompts: [{ prompt_id: "weekend-plan", answer: "Markets, then a long lunch" }],
      bio: "Not part of this step",
    });
    expect(saved.status).toBe(302);
    expect(saved.headers.get("Location")).toBe("/onboarding?step=review");
    const profile = await profileOf(member.client);
    expect(profile.prompts).toEqual([
      { prompt_id: "weekend-plan", answer: "Markets, then a long lunch" },
    ]);
    expect(profile.bio).toBe("Hi!");
    // Answered: the review no longer asks.
    const after = await page(member.client, "/onboarding?step=review");
    expect(after.html).not.toContain('href="/onboarding?step=prompts"');
  });
});
