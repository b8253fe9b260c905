import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { registerMember } from "../helpers/members";
import { birthday, memberWithProfile, validProfile } from "./fixtures";

type ProfileBody = {
  profile: Record<string, unknown> & {
    username: string;
    ageRange: { min: number; max: number };
    location: null | {
      country: Record<string, string>;
      state: Record<string, string> | null;
      city: Record<string, string> | null;
    };
  };
};
type ErrorBody = { message: string; errors: Record<string, string[]> };

const US = {
  isoCode: "US",
  name: "United States",
  flag: "🇺🇸",
  phonecode: "1",
  currency: "USD",
  latitude: "38.00000000",
  longitude: "-97.00000000",
};
const TEXAS = { isoCode: "TX", name: "Texas", countryCode: "US" };
const AUSTIN = { name: "Austin", countryCode: "US", stateCode: "TX" };

/** PUT /my/profile with a complete valid profile plus `change`; returns the 422 errors or {}. */
async function errorsFor(change: Record<string, unknown>) {
  const { client } = await registerMember();
  const res = await client.json<ErrorBody>("PUT", "/my/profile", { ...validProfile, ...change });
  return { status: res.status, errors: res.body.errors ?? {}, body: res.body };
}

describe("GET /my/profile", () => {
  it("answers the form fields, account fields and photos", async () => {
    const { client, details, id } = await registerMember();
    const res = await client.json<ProfileBody>("GET", "/my/profile");
    expect(res.status).toBe(200);
    expect(res.body.profile).toEqual({
      id,
      email: details.email,
      email_verified_at: null,
      firstName: null,
      lastName: null,
      username: details.username,
      dateOfBirth: details.dateOfBirth,
      location: null,
      postalCode: null,
      bio: "",
      interests: [],
      preferences: [],
      ageRange: { min: 18, max: 100 },
      gender: null,
      ethnicity: null,
      prompts: [],
      photos: [],
    });
  });

  it("is 401 for a visitor and a page for a browser", async () => {
    const visitor = new TestClient();
    expect((await visitor.json("GET", "/my/profile")).status).toBe(401);
    const page = await visitor.fetch("/my/profile", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/login?redirectTo=%2Fmy%2Fprofile");
  });
});

describe("PUT /my/profile", () => {
  it("stores a complete profile before the email is verified and returns it", async () => {
    const { client } = await registerMember();
    const res = await client.json<ProfileBody>("PUT", "/my/profile", {
      ...validProfile,
      firstName: "Ada",
      lastName: "Lovelace",
      gender: "Woman",
      ethnicity: "White",
      postalCode: "73301",
      location: { country: US, state: TEXAS, city: AUSTIN },
    });
    expect(res.status).toBe(200);
    expect(res.body.profile).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      gender: "Woman",
      ethnicity: "White",
      postalCode: "73301",
      bio: validProfile.bio,
      interests: ["Hiking", "Coffee"],
      preferences: ["Long-term relationship"],
      ageRange: { min: 25, max: 40 },
      location: { country: US, state: TEXAS, city: AUSTIN },
    });
    const again = await client.json<ProfileBody>("GET", "/my/profile");
    expect(again.body.profile).toEqual(res.body.profile);
  });

  it("merges: fields absent from the request keep their stored values", async () => {
    const { client } = await registerMember();
    await client.json("PUT", "/my/profile", {
      ...validProfile,
      firstName: "Ada",
      location: { country: US, state: TEXAS },
    });
    const res = await client.json<ProfileBody>("PUT", "/my/profile", { bio: "New bio" });
    expect(res.status).toBe(200);
    expect(res.body.profile).toMatchObject({
      bio: "New bio",
      firstName: "Ada",
      interests: ["Hiking", "Coffee"],
      preferences: ["Long-term relationship"],
      ageRange: { min: 25, max: 40 },
      location: { country: US, state: TEXAS, city: null },
    });
    // A partial age range keeps the stored other bound.
    const partial = await client.json<ProfileBody>("PUT", "/my/profile", { ageRange: { max: 50 } });
    expect(partial.body.profile.ageRange).toEqual({ min: 25, max: 50 });
  });

  it("applies the profile rules (docs/domain.md) to the merged result: a new member must still give bio and lists", async () => {
    const { client } = await registerMember();
    const res = await client.json<ErrorBody>("PUT", "/my/profile", { firstName: "Ada" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      bio: ["The bio field is required."],
      interests: ["Please input at least one item"],
      preferences: ["Please input at least one item"],
    });
  });

  it("clears optional texts sent as null and the location sent as null or {}", async () => {
    const { client } = await registerMember();
    await client.json("PUT", "/my/profile", {
      ...validProfile,
      firstName: "Ada",
      gender: "Woman",
      location: { country: US },
    });
    const res = await client.json<ProfileBody>("PUT", "/my/profile", {
      firstName: null,
      gender: null,
      location: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.profile).toMatchObject({ firstName: null, gender: null, location: null });
    await client.json("PUT", "/my/profile", { location: { country: US } });
    const empty = await client.json<ProfileBody>("PUT", "/my/profile", { location: {} });
    expect(empty.body.profile.location).toBeNull();
  });

  it("keeps the stored date of birth when it is sent as null", async () => {
    const { client, details } = await registerMember();
    const res = await client.json<ProfileBody>("PUT", "/my/profile", {
      ...validProfile,
      dateOfBirth: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.profile.dateOfBirth).toBe(details.dateOfBirth);
  });

  it("changes the username when it is free, case-insensitively unique", async () => {
    const other = await registerMember();
    const { client } = await registerMember();
    const taken = await client.json<ErrorBody>("PUT", "/my/profile", {
      ...validProfile,
      username: other.details.username.toUpperCase(),
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ username: ["This username is already taken."] });
    const ok = await client.json<ProfileBody>("PUT", "/my/profile", {
      ...validProfile,
      username: "brand_new_name",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.profile.username).toBe("brand_new_name");
  });

  it("needs the CSRF token and a session", async () => {
    const { client } = await registerMember();
    const noToken = await client.json("PUT", "/my/profile", validProfile, { csrf: null });
    expect(noToken.status).toBe(419);
    const visitor = new TestClient();
    await visitor.loadCsrfFromPage();
    expect((await visitor.json("PUT", "/my/profile", validProfile)).status).toBe(401);
  });

  it("refuses a body that is not a JSON object", async () => {
    const { client } = await registerMember();
    const res = await client.json<ErrorBody>("PUT", "/my/profile", ["bio"]);
    expect(res.status).toBe(422);
  });
});

describe("profile rules of docs/domain.md, word for word", () => {
  it.each([
    ["ab", "Username must be at least 3 characters"],
    ["a".repeat(31), "Username must be at most 30 characters"],
    ["bad name!", "Username can only contain letters, numbers, and underscores"],
    ["", "Username must be at least 3 characters"],
  ])("username %j → %s", async (username, message) => {
    const { status, errors } = await errorsFor({ username });
    expect(status).toBe(422);
    expect(errors.username).toContain(message);
  });

  it.each([["abc"], ["a".repeat(30)], ["Under_score_9"]])(
    "username %j is accepted",
    async (username) => {
      const { status } = await errorsFor({ username });
      expect(status).toBe(200);
    },
  );

  it.each([
    ["firstName", "Please provide your prefer name"],
    ["lastName", "Please provide your prefer name"],
    ["gender", "Please provide your gender"],
    ["ethnicity", "Please provide your ethnicity"],
  ])("%s given but empty → %s", async (field, message) => {
    for (const value of ["", "   "]) {
      const { status, errors } = await errorsFor({ [field]: value });
      expect(status).toBe(422);
      expect(errors).toEqual({ [field]: [message] });
    }
  });

  it("dateOfBirth: 18 today is accepted, one day short of 18 is refused", async () => {
    expect((await errorsFor({ dateOfBirth: birthday(18) })).status).toBe(200);
    const young = await errorsFor({ dateOfBirth: birthday(18, 1) });
    expect(young.status).toBe(422);
    expect(young.errors).toEqual({ dateOfBirth: ["You must be at least 18 years old"] });
  });

  it.each([["2001-02-30"], ["not a date"], [19990101]])(
    "dateOfBirth %j → Please select your date of birth",
    async (dateOfBirth) => {
      const { errors } = await errorsFor({ dateOfBirth });
      expect(errors).toEqual({ dateOfBirth: ["Please select your date of birth"] });
    },
  );

  it.each([
    [{ country: { name: "Nowhere" } }],
    [{ country: { isoCode: 12, name: "United States" } }],
    [{ state: TEXAS }],
    ["US"],
    [{ country: US, state: { isoCode: "ON", name: "Ontario", countryCode: "CA" } }],
    [{ country: US, city: AUSTIN }],
    [{ country: { ...US, isoCode: "ZZ" } }],
    [{ country: US, state: { ...TEXAS, isoCode: "ZZ" } }],
    [{ country: US, state: TEXAS, city: { ...AUSTIN, name: "Atlantis" } }],
  ])("location %j → Invalid location data", async (location) => {
    const { status, errors } = await errorsFor({ location });
    expect(status).toBe(422);
    expect(errors).toEqual({ location: ["Invalid location data"] });
  });

  it("stores the dataset's own names, not the client's", async () => {
    const { client } = await registerMember();
    const res = await client.json<ProfileBody>("PUT", "/my/profile", {
      ...validProfile,
      location: {
        country: { isoCode: "US", name: "Freedonia" },
        state: { isoCode: "TX", name: "Lone Star", countryCode: "US" },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.profile.location).toEqual({ country: US, state: TEXAS, city: null });
    const row = await env.DB.prepare(
      "SELECT country_code, state_code, city_name FROM profiles WHERE user_id = (SELECT id FROM users WHERE username = ?)",
    )
      .bind(res.body.profile.username)
      .first();
    expect(row).toEqual({ country_code: "US", state_code: "TX", city_name: null });
  });

  it.each([[""], ["   "], [null]])("bio %j → The bio field is required.", async (bio) => {
    const { errors } = await errorsFor({ bio });
    expect(errors).toEqual({ bio: ["The bio field is required."] });
  });

  it.each([["interests"], ["preferences"]])(
    "%s: an empty list → Please input at least one item",
    async (field) => {
      const { errors } = await errorsFor({ [field]: [] });
      expect(errors).toEqual({ [field]: ["Please input at least one item"] });
      expect((await errorsFor({ [field]: ["One"] })).status).toBe(200);
    },
  );

  it.each([
    [{ min: 17, max: 30 }, { "ageRange.min": ["Minimum age must be at least 18"] }],
    [{ min: 100, max: 100 }, { "ageRange.min": ["Minimum age must be less than 100"] }],
    [{ min: 18, max: 18 }, { "ageRange.max": ["Maximum age must be at least 19"] }],
    [{ min: 30, max: 101 }, { "ageRange.max": ["Maximum age cannot exceed 100"] }],
    [{ min: 40, max: 40 }, { "ageRange.min": ["Minimum age must be less than maximum age"] }],
    [{ min: 50, max: 40 }, { "ageRange.min": ["Minimum age must be less than maximum age"] }],
    [{ min: "x", max: 40 }, { "ageRange.min": ["Minimum age must be at least 18"] }],
  ])("ageRange %j → %j", async (ageRange, expected) => {
    const { status, errors } = await errorsFor({ ageRange });
    expect(status).toBe(422);
    expect(errors).toEqual(expected);
  });

  it.each([[{ min: 18, max: 19 }], [{ min: 99, max: 100 }]])(
    "ageRange %j is accepted",
    async (ageRange) => {
      expect((await errorsFor({ ageRange })).status).toBe(200);
    },
  );

  it("reports every broken field at once under dotted keys", async () => {
    const { body } = await errorsFor({
      username: "x",
      bio: "",
      interests: [],
      ageRange: { min: 10, max: 120 },
    });
    expect(body.message).toBe("Username must be at least 3 characters");
    expect(Object.keys(body.errors).sort()).toEqual([
      "ageRange.max",
      "ageRange.min",
      "bio",
      "interests",
      "username",
    ]);
  });
});

describe("profile pages", () => {
  it("/settings redirects to /settings/profile, which lists Profile first", async () => {
    const { client } = await registerMember();
    const settings = await client.fetch("/settings", { headers: { Accept: "text/html" } });
    expect(settings.status).toBe(302);
    expect(settings.headers.get("Location")).toBe("/settings/profile");
    const page = await client.fetch("/settings/profile", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Profile Settings - Heartline</title>");
    expect(html.indexOf(">Profile</a>")).toBeLessThan(html.indexOf(">Password</a>"));
    expect(html).toContain('href="/my/profile"');
    // The location dataset is fetched by the picker, never inlined.
    expect(html).not.toContain("Afghanistan");
  });

  it("/my/profile shows the profile, and the viewers only to a verified member", async () => {
    const unverified = await registerMember();
    const page = await unverified.client.fetch("/my/profile", {
      headers: { Accept: "text/html" },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>My Profile - Heartline</title>");
    expect(html).toContain("Verify your email address to see who viewed your profile.");

    const verified = await memberWithProfile({ firstName: "Grace" });
    const own = await (
      await verified.client.fetch("/my/profile", { headers: { Accept: "text/html" } })
    ).text();
    expect(own).toContain("Who viewed you");
    expect(own).toContain("Grace");
    expect(own).toContain("0 viewers");
  });

  it("builds the location files into the static assets", async () => {
    const asset = (path: string) => env.ASSETS.fetch(new Request(`http://localhost${path}`));
    const countries = await asset("/geo/countries.json");
    expect(countries.status).toBe(200);
    const list = (await countries.json()) as { isoCode: string }[];
    expect(list.length).toBeGreaterThan(200);
    const us = (await (await asset("/geo/US.json")).json()) as {
      states: { isoCode: string; cities: string[] }[];
    };
    expect(us.states.find((s) => s.isoCode === "TX")?.cities).toContain("Austin");
  });
});
