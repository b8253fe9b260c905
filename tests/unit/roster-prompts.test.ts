/**
 * The demo members' prompt answers (scripts/lib/roster.ts): each hand-written member and the demo
 * account answer one to three prompts, as a member could through PUT /my/profile (the server's
 * prompts schema), in words message safety has nothing to say about, and not all the same prompts.
 * The demo account's seeded like comments (scripts/lib/seed-demo-life.ts) land on prompts it
 * answered and pass message safety too.
 */
import { describe, expect, it } from "vitest";
import { PROMPTS, PROMPTS_MAX, promptsField } from "~/schemas/prompts";
import { recipientSafety, senderSafety } from "~/server/message-safety.server";
import { buildMembers } from "../../scripts/lib/members";
import { DEMO_PROFILE, ROSTER } from "../../scripts/lib/roster";
import { ADMIRER_WORDS, MATCH_WORDS } from "../../scripts/lib/seed-demo-life";

const everyone = [DEMO_PROFILE, ...ROSTER];

describe("the demo members' prompt answers", () => {
  it("are one to three answers per member that the profile prompts schema accepts unchanged", () => {
    for (const entry of everyone) {
      const prompts = entry.prompts ?? [];
      expect(prompts.length, entry.username).toBeGreaterThanOrEqual(1);
      expect(prompts.length, entry.username).toBeLessThanOrEqual(PROMPTS_MAX);
      const parsed = promptsField.safeParse(prompts);
      expect(parsed.error?.issues, entry.username).toBeUndefined();
      // Stored as written: already trimmed, nothing for the schema to change.
      expect(parsed.data, entry.username).toEqual(prompts);
    }
  });

  it("say nothing message safety would warn of or ask about", () => {
    for (const entry of everyone) {
      for (const { prompt_id, answer } of entry.prompts ?? []) {
        const where = `${entry.username} ${prompt_id}`;
        expect(recipientSafety(answer), where).toBeNull();
        expect(senderSafety(answer), where).toBeNull();
      }
    }
  });

  it("vary: most members answer two, some three, a few one, across most of the catalog", () => {
    const sizes = everyone.map((e) => e.prompts?.length ?? 0);
    const count = (n: number) => sizes.filter((s) => s === n).length;
    expect(count(2)).toBeGreaterThan(everyone.length / 2);
    expect(count(3)).toBeGreaterThan(0);
    expect(count(1)).toBeGreaterThan(0);

    const ids = everyone.flatMap((e) => (e.prompts ?? []).map((p) => p.prompt_id));
    expect(new Set(ids).size).toBeGreaterThanOrEqual(20);
    // No prompt is everyone's: the most used one is answered by under a fifth of the members.
    const uses = new Map<string, number>();
    for (const id of ids) uses.set(id, (uses.get(id) ?? 0) + 1);
    expect(Math.max(...uses.values())).toBeLessThan(everyone.length / 5);
    // Nor is one pair of prompts.
    const pairs = new Set(
      everyone.map((e) =>
        (e.prompts ?? [])
          .map((p) => p.prompt_id)
          .sort()
          .join(" "),
      ),
    );
    expect(pairs.size).toBeGreaterThan(everyone.length / 2);
    expect(ids.every((id) => PROMPTS.some((p) => p.id === id))).toBe(true);
  });

  it("reach the seed's members in the shape profiles store; generated members have none", () => {
    const members = buildMembers({ count: ROSTER.length + 3, now: new Date("2026-05-01") });
    const demo = members.find((m) => m.demo)!;
    expect(demo.prompts).toEqual(DEMO_PROFILE.prompts);
    for (const m of members.slice(1, ROSTER.length + 1)) {
      const entry = ROSTER.find((e) => e.username === m.username)!;
      expect(m.prompts).toEqual(entry.prompts);
      for (const p of m.prompts) expect(Object.keys(p).sort()).toEqual(["answer", "prompt_id"]);
    }
    for (const m of members.slice(ROSTER.length + 1)) expect(m.prompts).toEqual([]);
  });
});

describe("the demo account's like comments", () => {
  const words = [...ADMIRER_WORDS, ...MATCH_WORDS];

  it("land on prompts the demo profile answers", () => {
    const answered = new Set<string>(DEMO_PROFILE.prompts!.map((p) => p.prompt_id));
    const onPrompts = words.flatMap((w) => (w.on && "prompt_id" in w.on ? [w.on.prompt_id] : []));
    expect(onPrompts.length).toBeGreaterThan(0);
    for (const id of onPrompts) expect(answered.has(id), id).toBe(true);
  });

  it("are short and say nothing message safety would warn of or ask about", () => {
    for (const { comment } of words) {
      expect(comment.length).toBeGreaterThan(0);
      expect(comment.length).toBeLessThanOrEqual(300);
      expect(comment.trim()).toBe(comment);
      expect(recipientSafety(comment), comment).toBeNull();
      expect(senderSafety(comment), comment).toBeNull();
    }
  });
});
