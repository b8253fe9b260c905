import { describe, expect, it } from "vitest";
import { isReservedUsername } from "~/schemas/auth";
import { isSafeText } from "~/schemas/text";
import { conversationPair } from "../chat/helpers";
import { TestClient } from "../helpers/client";
import { uniqueMember, verifiedMember } from "../helpers/members";
import { validProfile } from "../profile/fixtures";

/**
 * Issue 12, finding 10: text other members read refuses NUL, bidi overrides, ANSI escapes, lone
 * surrogates and other control characters (one shared refinement, app/schemas/text.ts), and
 * names that pass for the service or its staff cannot be taken.
 */
const HOSTILE = {
  nul: "hello\u0000world",
  bidi: "invoice\u202egpj.exe",
  isolate: "a\u2066b\u2069",
  ansi: "\u001b[31mred\u001b[0m",
  surrogate: "broken \ud800 pair",
  lowSurrogate: "broken \udc00 pair",
  bell: "ding\u0007",
  c1: "next\u0085line",
  del: "rub\u007fout",
  noncharacter: "odd\uffff",
};
const MESSAGE = "This text contains characters that are not allowed.";

describe("isSafeText", () => {
  it("keeps ordinary text of every script, emoji sequences, and line breaks where they belong", () => {
    for (const ok of ["Zoë", "Łukasz", "محمد", "小林", "👩‍❤️‍👨 🏳️‍🌈", "tea & cake"]) {
      expect(isSafeText(ok), ok).toBe(true);
    }
    expect(isSafeText("line one\nline two\r\n\tindented", { multiline: true })).toBe(true);
    expect(isSafeText("line one\nline two")).toBe(false);
    expect(isSafeText("lone\rreturn", { multiline: true })).toBe(false);
  });

  it.each(Object.entries(HOSTILE))("refuses %s", (_, text) => {
    expect(isSafeText(text)).toBe(false);
    expect(isSafeText(text, { multiline: true })).toBe(false);
  });
});

describe("member-written text", () => {
  it("refuses hostile characters in names, bios and interests, and stores nothing", async () => {
    const member = await verifiedMember();
    const saved = await member.client.json("PUT", "/my/profile", validProfile);
    expect(saved.status).toBe(200);
    for (const [kind, text] of Object.entries(HOSTILE)) {
      for (const field of ["firstName", "bio", "gender"] as const) {
        const res = await member.client.json<{ errors: Record<string, string[]> }>(
          "PUT",
          "/my/profile",
          { [field]: text },
        );
        expect(res.status, `${field} ${kind}`).toBe(422);
        expect(res.body.errors[field], `${field} ${kind}`).toContain(MESSAGE);
      }
      const tags = await member.client.json<{ errors: Record<string, string[]> }>(
        "PUT",
        "/my/profile",
        { interests: ["hiking", text] },
      );
      expect(tags.status, `interests ${kind}`).toBe(422);
    }
    const profile = await member.client.json<{ profile: Record<string, unknown> }>(
      "GET",
      "/my/profile",
    );
    expect(profile.body.profile.bio).toBe(validProfile.bio);
  });

  it("refuses them in messages, block reasons and report details", async () => {
    const { alice, bob, id } = await conversationPair();
    for (const [kind, text] of Object.entries(HOSTILE)) {
      const sent = await alice.client.json(`POST`, `/chat/conversations/${id}/messages`, {
        message: text,
      });
      expect(sent.status, `message ${kind}`).toBe(422);
      const report = await alice.client.json("POST", "/reports", {
        user_id: bob.id,
        reason_type: "spam",
        details: text,
      });
      expect(report.status, `report ${kind}`).toBe(422);
      const blocked = await alice.client.json("POST", "/my/block", {
        user_id: bob.id,
        reason_type: "other",
        reason: text,
      });
      expect(blocked.status, `block ${kind}`).toBe(422);
    }
    const multiline = await alice.client.json(`POST`, `/chat/conversations/${id}/messages`, {
      message: "first line\nsecond line",
    });
    expect(multiline.status).toBe(201);
  });
});

describe("reserved usernames", () => {
  it("knows the names, whatever their case, underscores or trailing digits", () => {
    for (const name of ["admin", "Admin", "ADMIN_1", "moderator", "support", "Heartline", "root"]) {
      expect(isReservedUsername(name), name).toBe(true);
    }
    expect(isReservedUsername("rootbeer_fan")).toBe(false);
    expect(isReservedUsername("ada_l")).toBe(false);
  });

  it("cannot be registered or taken in the profile", async () => {
    for (const username of ["admin", "Moderator", "support_", "heartline2", "system"]) {
      const res = await new TestClient().json<{ errors: Record<string, string[]> }>(
        "POST",
        "/register",
        { ...uniqueMember(), username },
      );
      expect(res.status, username).toBe(422);
      expect(res.body.errors.username, username).toEqual(["This username is reserved."]);
    }
    const member = await verifiedMember();
    const res = await member.client.json<{ errors: Record<string, string[]> }>(
      "PUT",
      "/my/profile",
      { ...validProfile, username: "Admin" },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.username).toEqual(["This username is reserved."]);
  });
});
