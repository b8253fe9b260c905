import { describe, expect, it } from "vitest";
import { sniffImageType, typeFromDeclared } from "~/lib/image-type";
import { checkPhotos, PHOTO_MESSAGES } from "~/schemas/photos";
import { profileSchema, toProfilePayload } from "~/schemas/profile";
import { fieldErrors } from "~/schemas/validation";
import { mergeProfile } from "~/server/profiles.server";
import { storedProfile } from "../helpers/cards";

const MB = 1024 * 1024;
const bytes = (...values: (number | string)[]) =>
  new Uint8Array(
    values.flatMap((v) => (typeof v === "string" ? Array.from(v, (c) => c.charCodeAt(0)) : [v])),
  );

describe("checkPhotos (docs/domain.md: Profile and photos)", () => {
  const png = (size: number) => ({ size, type: "png" as const });

  it("needs at least one photo", () => {
    expect(checkPhotos([]).messages).toEqual([PHOTO_MESSAGES.required]);
  });

  it("allows 5 in all, counting the photos a member already has", () => {
    expect(checkPhotos(Array(5).fill(png(1))).messages).toEqual([]);
    expect(checkPhotos(Array(6).fill(png(1))).messages).toEqual(["Maximum 5 photos allowed"]);
    expect(checkPhotos([png(1)], { count: 5, totalBytes: 5 }).messages).toEqual([
      "Maximum 5 photos allowed",
    ]);
  });

  it("wants each photo under 4MB", () => {
    expect(checkPhotos([png(4 * MB - 1)]).messages).toEqual([]);
    expect(checkPhotos([png(4 * MB)]).messages).toEqual(["Each photo must be less than 4MB"]);
    expect(checkPhotos([png(4 * MB + 1)]).messages).toEqual(["Each photo must be less than 4MB"]);
  });

  it("wants all photos together under 20MB", () => {
    expect(checkPhotos([png(1)], { count: 4, totalBytes: 20 * MB - 2 }).messages).toEqual([]);
    expect(checkPhotos([png(1)], { count: 4, totalBytes: 20 * MB - 1 }).messages).toEqual([
      "Total size of all photos must be less than 20MB",
    ]);
    expect(checkPhotos(Array(5).fill(png(4 * MB))).messages).toEqual([
      "Each photo must be less than 4MB",
      "Total size of all photos must be less than 20MB",
    ]);
  });

  it("accepts JPEG, PNG and WebP, refusing other images and non-images", () => {
    expect(
      checkPhotos([
        { size: 1, type: "jpeg" },
        { size: 1, type: "webp" },
      ]).messages,
    ).toEqual([]);
    const other = checkPhotos([{ size: 1, type: "other-image" }]);
    expect(other).toEqual({
      messages: ["Only JPEG, PNG, and WebP images are supported"],
      wrongType: true,
    });
    expect(checkPhotos([{ size: 1, type: "not-image" }]).messages).toEqual([
      "Only image files are allowed",
    ]);
  });
});

describe("sniffImageType", () => {
  it.each([
    [bytes(0xff, 0xd8, 0xff, 0xe1), "jpeg"],
    [bytes(0x89, "PNG", 0x0d, 0x0a, 0x1a, 0x0a, 0), "png"],
    [bytes("RIFF", 1, 2, 3, 4, "WEBPVP8 "), "webp"],
    [bytes("GIF89a"), "other-image"],
    [bytes(0, 0, 0, 0x18, "ftypheic"), "other-image"],
    [bytes("<?xml version='1.0'?><svg></svg>"), "other-image"],
    [bytes("  <svg/>"), "other-image"],
    [bytes("<!doctype html><html>"), "not-image"],
    [bytes(0x89, "PNX"), "not-image"],
    [bytes("RIFF", 1, 2, 3, 4, "WAVE"), "not-image"],
    [bytes(), "not-image"],
  ])("%j is %s", (head, type) => {
    expect(sniffImageType(head)).toBe(type);
  });

  it("guesses from a declared type and name in the browser", () => {
    expect(typeFromDeclared("image/jpeg", "a.bin")).toBe("jpeg");
    expect(typeFromDeclared("image/heic", "a.heic")).toBe("other-image");
    expect(typeFromDeclared("", "holiday.webp")).toBe("webp");
    expect(typeFromDeclared("text/html", "a.png")).toBe("not-image");
  });
});

describe("the profile payload the settings page sends", () => {
  const form = {
    firstName: "  ",
    lastName: "",
    username: "ada_l",
    dateOfBirth: "1990-01-01",
    location: null,
    postalCode: "",
    bio: "Hi",
    interests: ["Chess"],
    preferences: ["Friendship"],
    ageRange: { min: 20, max: 30 },
    gender: "",
    ethnicity: "Mixed",
    prompts: [],
  };

  it("sends blanks as null and no location without a country", () => {
    const payload = toProfilePayload(form, { hadLocation: false });
    expect(payload).toEqual({
      firstName: null,
      lastName: null,
      username: "ada_l",
      dateOfBirth: "1990-01-01",
      postalCode: null,
      bio: "Hi",
      interests: ["Chess"],
      preferences: ["Friendship"],
      ageRange: { min: 20, max: 30 },
      gender: null,
      ethnicity: "Mixed",
      prompts: [],
    });
    expect("location" in payload).toBe(false);
    expect(profileSchema.safeParse(payload).success).toBe(true);
  });

  it("sends the location when a country is set, and null when a stored one was removed", () => {
    const country = { isoCode: "FR", name: "France" };
    expect(
      toProfilePayload({ ...form, location: { country } }, { hadLocation: false }).location,
    ).toEqual({ country });
    expect(toProfilePayload(form, { hadLocation: true }).location).toBeNull();
  });

  it("gives the page the same messages as the server, under dotted keys", () => {
    const result = profileSchema.safeParse({
      ...toProfilePayload(form, { hadLocation: false }),
      username: "ab",
      ageRange: { min: 30, max: 30 },
    });
    expect(result.success).toBe(false);
    expect(fieldErrors(result.error!)).toEqual({
      username: ["Username must be at least 3 characters"],
      "ageRange.min": ["Minimum age must be less than maximum age"],
    });
  });
});

describe("mergeProfile (docs/domain.md: Client state)", () => {
  const stored = storedProfile({ bio: "Old" });

  it("overlays only the fields that were sent, and ignores unknown ones", () => {
    const merged = mergeProfile(stored, { bio: "New", email: "x@y.z", id: "other" });
    expect(merged).toMatchObject({ bio: "New", firstName: "Ada", interests: ["Chess"] });
    expect(merged).not.toHaveProperty("email");
    expect(merged).not.toHaveProperty("id");
  });

  it("keeps the other bound of a partial age range, and the birth date when sent empty", () => {
    expect(mergeProfile(stored, { ageRange: { min: 30 } }).ageRange).toEqual({ min: 30, max: 40 });
    expect(mergeProfile(stored, { dateOfBirth: null }).dateOfBirth).toBe("1990-01-01");
    expect(mergeProfile(stored, { dateOfBirth: "" }).dateOfBirth).toBe("1990-01-01");
  });

  it("lets an explicit null clear an optional field", () => {
    expect(mergeProfile(stored, { firstName: null }).firstName).toBeNull();
  });
});
