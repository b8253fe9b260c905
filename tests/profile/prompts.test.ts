import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PROMPT_MESSAGES, PROMPTS, promptsForCard } from "~/schemas/prompts";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { memberWithProfile, validProfile } from "./fixtures";

type Entry = { prompt_id: string; answer: string };
type ProfileBody = { profile: { prompts: Entry[]; bio: string } };
type ErrorBody = { message: string; errors: Record<string, string[]> };

const [A, B, C, D] = PROMPTS;

async function storedPrompts(userId: string): Promise<Entry[]> {
  const row = await env.DB.prepare("SELECT prompts FROM profiles WHERE user_id = ?1")
    .bind(userId)
    .first<{ prompts: string }>();
  return JSON.parse(row!.prompts) as Entry[];
}

describe("the prompts catalog", () => {
  it("GET /profile/prompts answers every prompt by id and text, to signed-in members", async () => {
    expect(PROMPTS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(PROMPTS.map((p) => p.id)).size).toBe(PROMPTS.length);
    // Before the email is verified too: the profile can be edited then.
    const { client } = await registerMember();
    const res = await client.json<{ prompts: { id: string; text: string }[] }>(
      "GET",
      "/profile/prompts",
    );
    expect(res.status).toBe(200);
    expect(res.body.prompts).toEqual(PROMPTS.map(({ id, text }) => ({ id, text })));
  });

  it("is for members only", async () => {
    const res = await new TestClient().json("GET", "/profile/prompts");
    expect(res.status).toBe(401);
  });

  it("promptsForCard gives each stored answer its text and drops prompts the catalog lost", () => {
    expect(
      promptsForCard([
        { prompt_id: A!.id, answer: "Markets, then a long lunch" },
        { prompt_id: "retired-prompt", answer: "gone" },
      ]),
    ).toEqual([{ prompt_id: A!.id, text: A!.text, answer: "Markets, then a long lunch" }]);
    expect(promptsForCard([])).toEqual([]);
  });
});

describe("PUT /my/profile prompts", () => {
  it("stores up to three answers, trimmed, in order; GET /my/profile returns them", async () => {
    const { client, id } = await registerMember();
    const prompts = [
      { prompt_id: B!.id, answer: "  Fresh bread on the way home  " },
      { prompt_id: A!.id, answer: "Markets, then a long lunch" },
      { prompt_id: C!.id, answer: "x".repeat(300) },
    ];
    const res = await client.json<ProfileBody>("PUT", "/my/profile", {
      ...validProfile,
      prompts,
    });
    expect(res.status).toBe(200);
    const expected = [
      { prompt_id: B!.id, answer: "Fresh bread on the way home" },
      { prompt_id: A!.id, answer: "Markets, then a long lunch" },
      { prompt_id: C!.id, answer: "x".repeat(300) },
    ];
    expect(res.body.profile.prompts).toEqual(expected);
    expect((await client.json<ProfileBody>("GET", "/my/profile")).body.profile.prompts).toEqual(
      expected,
    );
    expect(await storedPrompts(id)).toEqual(expected);
  });

  it("keeps the prompts when the request leaves them out, and clears them with []", async () => {
    const { client, id } = await registerMember();
    const prompts = [{ prompt_id: A!.id, answer: "Markets" }];
    expect((await client.json("PUT", "/my/profile", { ...validProfile, prompts })).status).toBe(
      200,
    );
    const kept = await client.json<ProfileBody>("PUT", "/my/profile", { bio: "New bio" });
    expect(kept.status).toBe(200);
    expect(kept.body.profile.prompts).toEqual(prompts);
    expect(kept.body.profile.bio).toBe("New bio");
    const cleared = await client.json<ProfileBody>("PUT", "/my/profile", { prompts: [] });
    expect(cleared.body.profile.prompts).toEqual([]);
    expect(await storedPrompts(id)).toEqual([]);
  });

  it("refuses more than three, unknown prompts, repeats, blank and long answers (422, nothing changed)", async () => {
    const { client, id } = await registerMember();
    const before = [{ prompt_id: D!.id, answer: "Kept as it was" }];
    await client.json("PUT", "/my/profile", { ...validProfile, prompts: before });

    const cases: [unknown, Record<string, string[]>][] = [
      [
        [A, B, C, D].map((p) => ({ prompt_id: p!.id, answer: "Yes" })),
        { prompts: [PROMPT_MESSAGES.tooMany] },
      ],
      [
        [{ prompt_id: "favourite-colour", answer: "Blue" }],
        { "prompts.0.prompt_id": [PROMPT_MESSAGES.unknown] },
      ],
      [
        [
          { prompt_id: A!.id, answer: "One" },
          { prompt_id: A!.id, answer: "Two" },
        ],
        { "prompts.1.prompt_id": [PROMPT_MESSAGES.duplicate] },
      ],
      [
        [
          { prompt_id: A!.id, answer: "Fine" },
          { prompt_id: B!.id, answer: "   " },
        ],
        { "prompts.1.answer": [PROMPT_MESSAGES.answer] },
      ],
      [[{ prompt_id: A!.id }], { "prompts.0.answer": [PROMPT_MESSAGES.answer] }],
      [
        [{ prompt_id: A!.id, answer: "x".repeat(301) }],
        { "prompts.0.answer": [PROMPT_MESSAGES.answerMax] },
      ],
      ["Markets", { prompts: [PROMPT_MESSAGES.list] }],
      [[null], { "prompts.0": [PROMPT_MESSAGES.list] }],
    ];
    for (const [prompts, errors] of cases) {
      const res = await client.json<ErrorBody>("PUT", "/my/profile", {
        bio: "Changed with bad prompts",
        prompts,
      });
      expect(res.status, JSON.stringify(prompts)).toBe(422);
      expect(res.body.errors).toEqual(errors);
    }
    expect(await storedPrompts(id)).toEqual(before);
    const profile = (await client.json<ProfileBody>("GET", "/my/profile")).body.profile;
    expect(profile.bio).toBe(validProfile.bio);
  });
});

describe("prompts on the public profile and in search", () => {
  it("GET /members/{username} shows each answer with its prompt's text, in order", async () => {
    const target = await memberWithProfile({
      prompts: [
        { prompt_id: C!.id, answer: "Third first" },
        { prompt_id: A!.id, answer: "Markets, then a long lunch" },
      ],
    });
    const viewer = await verifiedMember();
    const res = await viewer.client.json<{ member: { prompts: unknown } }>(
      "GET",
      `/members/${target.details.username}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.member.prompts).toEqual([
      { prompt_id: C!.id, text: C!.text, answer: "Third first" },
      { prompt_id: A!.id, text: A!.text, answer: "Markets, then a long lunch" },
    ]);
  });

  it("the profile page shows the answers", async () => {
    const target = await memberWithProfile({
      firstName: "Noor",
      prompts: [{ prompt_id: A!.id, answer: "Flea markets & a long lunch" }],
    });
    const viewer = await verifiedMember();
    const res = await viewer.client.fetch(`/members/${target.details.username}`, {
      headers: { Accept: "text/html" },
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/In (<!-- -->)?Noor(<!-- -->)?&#x27;s words/);
    expect(html).toContain(`<p class="prompt-answer-q">${A!.text}</p>`);
    expect(html).toContain("Flea markets &amp; a long lunch");
  });

  it("my own profile page shows my answers, or where to write them", async () => {
    const member = await memberWithProfile({
      prompts: [{ prompt_id: B!.id, answer: "Fresh bread on the way home" }],
    });
    const page = async () =>
      (
        await (
          await member.client.fetch("/my/profile", { headers: { Accept: "text/html" } })
        ).text()
      ).replaceAll("<!-- -->", "");
    const html = await page();
    expect(html).toContain(`<p class="prompt-answer-q">${B!.text}</p>`);
    expect(html).toContain("Fresh bread on the way home");
    await member.client.json("PUT", "/my/profile", { prompts: [] });
    expect(await page()).toContain('href="/settings/profile">profile settings</a>');
  });

  it("keywords find a member by a word only their prompt answers hold", async () => {
    const word = `zq${Math.random().toString(36).slice(2, 8)}`;
    const target = await memberWithProfile({
      ageRange: { min: 18, max: 99 },
      prompts: [{ prompt_id: A!.id, answer: `Hunting for ${word} at the market` }],
    });
    const viewer = await verifiedMember();
    const found = async () => {
      const res = await viewer.client.json<{ results: { id: string }[] }>(
        "POST",
        "/my/matches/search",
        { keywords: word },
      );
      expect(res.status).toBe(200);
      return res.body.results.map((r) => r.id);
    };
    expect(await found()).toEqual([target.id]);
    // A new answer is new text for the index: the old word finds nobody.
    await target.client.json("PUT", "/my/profile", {
      prompts: [{ prompt_id: A!.id, answer: "Something else entirely" }],
    });
    expect(await found()).toEqual([]);
  });
});
