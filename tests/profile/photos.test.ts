import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { stripImageMetadata } from "~/server/photo-metadata.server";
import { imageDimensions } from "~/lib/image-type";
import { deletePhoto, uploadPhotos } from "~/server/photos.server";
import { TestClient } from "../helpers/client";
import { registerMember, verifiedMember } from "../helpers/members";
import { expiryOf, listedPhoto } from "../helpers/photo-urls";
import { countRows, gradientPng, imageBytes, memberWithProfile, upload } from "./fixtures";

const MB = 1024 * 1024;

/** Everything stored under the member's prefix: photos and their widths. */
async function allR2Keys(userId: string) {
  const listed = await env.PHOTOS.list({ prefix: `photos/${userId}/` });
  return listed.objects.map((o) => o.key).sort();
}

/** The member's photos in R2 (the widths an upload makes in the background aside). */
async function r2Keys(userId: string) {
  return (await allR2Keys(userId)).filter((key) => !/\.w\d+$/.test(key));
}

describe("POST /my/photos", () => {
  it("stores JPEG, PNG and WebP under generated keys with the type read from the bytes", async () => {
    const { client, id } = await registerMember();
    const res = await upload(client, [
      { bytes: imageBytes("jpeg"), name: "../../etc/passwd.txt", type: "text/plain" },
      { bytes: imageBytes("png"), name: "b.gif", type: "image/gif" },
      { bytes: imageBytes("webp"), name: "c.jpg", type: "image/jpeg" },
    ]);
    expect(res.status).toBe(201);
    const photos = res.body.photos!;
    expect(photos.map((p) => p.position)).toEqual([0, 1, 2]);
    // Each photo's signed addresses, at every width (app/server/photo-urls.server.ts).
    const exp = expiryOf(photos[0]!.url);
    for (const p of photos) expect(p).toEqual(await listedPhoto(p.id, id, p.position, exp));

    const rows = await env.DB.prepare(
      "SELECT id, r2_key, content_type FROM photos WHERE user_id = ? ORDER BY position",
    )
      .bind(id)
      .all<{ id: string; r2_key: string; content_type: string }>();
    expect(rows.results.map((r) => r.content_type)).toEqual([
      "image/jpeg",
      "image/png",
      "image/webp",
    ]);
    for (const r of rows.results) expect(r.r2_key).toBe(`photos/${id}/${r.id}`);
    expect(await r2Keys(id)).toEqual(rows.results.map((r) => r.r2_key).sort());
    const object = await env.PHOTOS.head(rows.results[0]!.r2_key);
    expect(object?.httpMetadata?.contentType).toBe("image/jpeg");
  });

  it("answers every photo of the member in order, the new ones last", async () => {
    const { client } = await registerMember();
    const first = await upload(client, [{ bytes: imageBytes("png") }]);
    const second = await upload(client, [
      { bytes: imageBytes("jpeg") },
      { bytes: imageBytes("webp") },
    ]);
    expect(second.status).toBe(201);
    expect(second.body.photos).toHaveLength(3);
    expect(second.body.photos![0]!.id).toBe(first.body.photos![0]!.id);
  });

  it("refuses an upload without a file: Please select at least one photo", async () => {
    const { client } = await registerMember();
    const empty = await upload(client, []);
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ photos: ["Please select at least one photo"] });
    const json = await client.json<{ errors: unknown }>("POST", "/my/photos", { photos: [] });
    expect(json.status).toBe(422);
    expect(json.body.errors).toEqual({ photos: ["Please select at least one photo"] });
  });

  it("allows 5 photos and refuses a 6th, in one upload or across uploads", async () => {
    const { client, id } = await registerMember();
    const six = await upload(
      client,
      Array.from({ length: 6 }, () => ({ bytes: imageBytes("png") })),
    );
    expect(six.status).toBe(422);
    expect(six.body.errors).toEqual({ photos: ["Maximum 5 photos allowed"] });
    expect(await countRows("SELECT COUNT(*) n FROM photos WHERE user_id = ?", id)).toBe(0);

    const five = await upload(
      client,
      Array.from({ length: 5 }, () => ({ bytes: imageBytes("png") })),
    );
    expect(five.status).toBe(201);
    const more = await upload(client, [{ bytes: imageBytes("png") }]);
    expect(more.status).toBe(422);
    expect(more.body.errors).toEqual({ photos: ["Maximum 5 photos allowed"] });
    expect(await r2Keys(id)).toHaveLength(5);
  });

  it("accepts a photo just under 4MB and refuses 4MB and 4MB + 1 byte", async () => {
    const { client } = await registerMember();
    expect((await upload(client, [{ bytes: imageBytes("jpeg", 4 * MB - 1) }])).status).toBe(201);
    for (const size of [4 * MB, 4 * MB + 1]) {
      const res = await upload(client, [{ bytes: imageBytes("jpeg", size) }]);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ photos: ["Each photo must be less than 4MB"] });
    }
  });

  it("accepts the largest legal set (5 photos just under 4MB, just under 20MB in all)", async () => {
    const { client } = await registerMember();
    const res = await upload(
      client,
      Array.from({ length: 5 }, () => ({ bytes: imageBytes("png", 4 * MB - 1) })),
    );
    expect(res.status).toBe(201);
    expect(res.body.photos).toHaveLength(5);
  });

  it("refuses a selection of 20MB or more with the total-size message", async () => {
    const { client, id } = await registerMember();
    const res = await upload(
      client,
      Array.from({ length: 6 }, () => ({ bytes: imageBytes("png", Math.ceil((20 * MB) / 6)) })),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      photos: ["Maximum 5 photos allowed", "Total size of all photos must be less than 20MB"],
    });
    expect(await r2Keys(id)).toHaveLength(0);
  });

  it("cuts off a body far beyond the limits with 413", async () => {
    const { client } = await registerMember();
    const res = await upload(
      client,
      Array.from({ length: 7 }, () => ({ bytes: imageBytes("png", 4 * MB - 1) })),
    );
    expect(res.status).toBe(413);
    expect(res.body.message).toBe("Total size of all photos must be less than 20MB");
  });

  it.each([
    ["html", "Only image files are allowed"],
    ["svg", "Only JPEG, PNG, and WebP images are supported"],
    ["gif", "Only JPEG, PNG, and WebP images are supported"],
  ] as const)("a .png whose bytes are %s is refused (415): %s", async (kind, message) => {
    const { client, id } = await registerMember();
    const res = await upload(client, [
      { bytes: imageBytes("png") },
      { bytes: imageBytes(kind), name: "innocent.png", type: "image/png" },
    ]);
    expect(res.status).toBe(415);
    expect(res.body.errors).toEqual({ photos: [message] });
    expect(await r2Keys(id)).toHaveLength(0);
  });

  it("two concurrent uploads never take a member past 5 photos", async () => {
    const { client, id } = await registerMember();
    await upload(client, [{ bytes: imageBytes("png") }, { bytes: imageBytes("png") }]);
    const results = await Promise.all([
      upload(client, [{ bytes: imageBytes("png") }, { bytes: imageBytes("png") }]),
      upload(client, [{ bytes: imageBytes("jpeg") }, { bytes: imageBytes("jpeg") }]),
      upload(client, [{ bytes: imageBytes("webp") }, { bytes: imageBytes("webp") }]),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 422, 422]);
    for (const r of results.filter((r) => r.status === 422)) {
      expect(r.body.errors).toEqual({ photos: ["Maximum 5 photos allowed"] });
    }
    expect(await countRows("SELECT COUNT(*) n FROM photos WHERE user_id = ?", id)).toBe(4);
    // Nothing is left behind in R2 by the refused uploads.
    expect(await r2Keys(id)).toHaveLength(4);
  });

  it("the store step itself refuses what a concurrent upload made too many", async () => {
    // Straight at the domain module, so that every upload passes its first check before any
    // of them stores: only the conditional insert stands between the member and a 6th photo.
    const { client, id } = await registerMember();
    await upload(client, [{ bytes: imageBytes("png") }, { bytes: imageBytes("png") }]);
    const results = await Promise.allSettled(
      [0, 1, 2].map(() => uploadPhotos(env, id, [imageBytes("png"), imageBytes("jpeg")])),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") {
        expect(r.reason).toMatchObject({
          status: 422,
          errors: { photos: ["Maximum 5 photos allowed"] },
        });
      }
    }
    expect(await countRows("SELECT COUNT(*) n FROM photos WHERE user_id = ?", id)).toBe(4);
    expect(await r2Keys(id)).toHaveLength(4);
  });

  it("needs a session and the CSRF token", async () => {
    const visitor = new TestClient();
    await visitor.loadCsrfFromPage();
    expect((await upload(visitor, [{ bytes: imageBytes("png") }])).status).toBe(401);
    const { client } = await registerMember();
    const res = await client.fetch("/my/photos", {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new FormData(),
    });
    expect(res.status).toBe(419);
  });
});

describe("DELETE /my/photos/{id} and PUT /my/photos/order", () => {
  it("deletes a photo, renumbers the rest and removes it from R2", async () => {
    const { client, id } = await registerMember();
    const { body } = await upload(client, [
      { bytes: imageBytes("png") },
      { bytes: imageBytes("jpeg") },
      { bytes: imageBytes("webp") },
    ]);
    const [a, b, c] = body.photos!;
    const res = await client.json("DELETE", `/my/photos/${b!.id}`);
    expect(res.status).toBe(204);
    const profile = await client.json<{ profile: { photos: { url: string }[] } }>(
      "GET",
      "/my/profile",
    );
    const exp = expiryOf(profile.body.profile.photos[0]!.url);
    expect(profile.body.profile.photos).toEqual([
      await listedPhoto(a!.id, id, 0, exp),
      await listedPhoto(c!.id, id, 1, exp),
    ]);
    expect(await r2Keys(id)).toEqual([`photos/${id}/${a!.id}`, `photos/${id}/${c!.id}`].sort());
  });

  it("keeps the last photo: Please select at least one photo", async () => {
    const { client } = await registerMember();
    const { body } = await upload(client, [{ bytes: imageBytes("png") }]);
    const res = await client.json<{ errors: unknown }>(
      "DELETE",
      `/my/photos/${body.photos![0]!.id}`,
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ photos: ["Please select at least one photo"] });
  });

  it("two concurrent deletes of the last two photos leave one", async () => {
    const { client, id } = await registerMember();
    const { body } = await upload(client, [
      { bytes: imageBytes("png") },
      { bytes: imageBytes("png") },
    ]);
    const results = await Promise.allSettled(
      body.photos!.map((p) => deletePhoto(env, id, p.id, "http://localhost")),
    );
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({
      reason: { status: 422, errors: { photos: ["Please select at least one photo"] } },
    });
    expect(await countRows("SELECT COUNT(*) n FROM photos WHERE user_id = ?", id)).toBe(1);
  });

  it("cannot delete another member's photo", async () => {
    const owner = await registerMember();
    const { body } = await upload(owner.client, [
      { bytes: imageBytes("png") },
      { bytes: imageBytes("png") },
    ]);
    const other = await registerMember();
    const res = await other.client.json("DELETE", `/my/photos/${body.photos![0]!.id}`);
    expect(res.status).toBe(404);
    expect(await countRows("SELECT COUNT(*) n FROM photos WHERE user_id = ?", owner.id)).toBe(2);
  });

  it("reorders: the first is the main photo", async () => {
    const { client } = await registerMember();
    const { body } = await upload(client, [
      { bytes: imageBytes("png") },
      { bytes: imageBytes("jpeg") },
      { bytes: imageBytes("webp") },
    ]);
    const ids = body.photos!.map((p) => p.id);
    const order = [ids[2]!, ids[0]!, ids[1]!];
    const res = await client.json<{ photos: { id: string; position: number }[] }>(
      "PUT",
      "/my/photos/order",
      { ids: order },
    );
    expect(res.status).toBe(200);
    expect(res.body.photos.map((p) => p.id)).toEqual(order);
    expect(res.body.photos.map((p) => p.position)).toEqual([0, 1, 2]);
  });

  it.each([
    ["a missing photo", (ids: string[]) => ids.slice(0, 2)],
    ["a duplicate", (ids: string[]) => [ids[0], ids[0], ids[1]]],
    ["an unknown id", (ids: string[]) => [ids[0], ids[1], "nope"]],
    ["not a list", () => "abc"],
  ])("refuses an order with %s", async (_what, make) => {
    const { client } = await registerMember();
    const { body } = await upload(client, [
      { bytes: imageBytes("png") },
      { bytes: imageBytes("png") },
      { bytes: imageBytes("png") },
    ]);
    const res = await client.json<{ errors: Record<string, string[]> }>("PUT", "/my/photos/order", {
      ids: make(body.photos!.map((p) => p.id)),
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.ids).toEqual(["The order must list each of your photos once."]);
  });
});

describe("GET /photos/{id}", () => {
  async function ownerWithPhoto() {
    const owner = await memberWithProfile();
    const bytes = imageBytes("jpeg", 2048);
    const { body } = await upload(owner.client, [{ bytes }]);
    return { owner, bytes, photoId: body.photos![0]!.id };
  }

  it("serves the bytes with the detected type, an ETag and long private caching", async () => {
    const { bytes, photoId } = await ownerWithPhoto();
    const viewer = await verifiedMember();
    const res = await viewer.client.fetch(`/photos/${photoId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/jpeg");
    expect(res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const etag = res.headers.get("ETag");
    expect(etag).toMatch(/^"[^"]+"$/);
    // The stored file without its metadata (the fixture's padding is a JPEG comment, which goes).
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(stripImageMetadata(bytes, "jpeg"));

    const again = await viewer.client.fetch(`/photos/${photoId}`, {
      headers: { "If-None-Match": etag! },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe(etag);
    expect(await again.text()).toBe("");
  });

  it("is for signed-in members only", async () => {
    const { photoId } = await ownerWithPhoto();
    const visitor = new TestClient();
    expect((await visitor.json("GET", `/photos/${photoId}`)).status).toBe(401);
  });

  it("shows a member's own photos before verification, others' only after", async () => {
    const unverified = await registerMember();
    const own = await upload(unverified.client, [{ bytes: imageBytes("png") }]);
    expect((await unverified.client.fetch(`/photos/${own.body.photos![0]!.id}`)).status).toBe(200);

    const { photoId } = await ownerWithPhoto();
    const res = await unverified.client.json<{ message: string }>("GET", `/photos/${photoId}`);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Your email address is not verified.");
  });

  it("is 404 for an unknown id and for an owner who cannot be seen", async () => {
    const viewer = await verifiedMember();
    expect((await viewer.client.json("GET", "/photos/doesnotexist")).status).toBe(404);

    // An unverified owner is not visible to other members.
    const hidden = await registerMember();
    const up = await upload(hidden.client, [{ bytes: imageBytes("png") }]);
    expect((await viewer.client.json("GET", `/photos/${up.body.photos![0]!.id}`)).status).toBe(404);

    // Nor is a suspended one.
    const { owner, photoId } = await ownerWithPhoto();
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?").bind(owner.id).run();
    expect((await viewer.client.json("GET", `/photos/${photoId}`)).status).toBe(404);
  });
});

describe("GET /photos/{id}?w=", () => {
  async function ownerWithPicture() {
    const owner = await memberWithProfile();
    const bytes = gradientPng(1000, 800);
    const { body } = await upload(owner.client, [{ bytes }]);
    return { owner, bytes, photoId: body.photos![0]!.id };
  }

  it("serves the photo at a width as WebP, made once and kept beside the photo", async () => {
    const { owner, bytes, photoId } = await ownerWithPicture();
    const viewer = await verifiedMember();
    let previous = 0;
    for (const width of [160, 400, 720]) {
      const res = await viewer.client.fetch(`/photos/${photoId}?w=${width}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/webp");
      expect(res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
      const small = new Uint8Array(await res.arrayBuffer());
      expect(imageDimensions(small, "webp")).toEqual({ width, height: (width * 4) / 5 });
      expect(small.byteLength).toBeGreaterThan(previous);
      previous = small.byteLength;
      const etag = res.headers.get("ETag")!;
      const again = await viewer.client.fetch(`/photos/${photoId}?w=${width}`, {
        headers: { "If-None-Match": etag },
      });
      expect(again.status).toBe(304);
    }
    expect(await allR2Keys(owner.id)).toEqual(
      [
        `photos/${owner.id}/${photoId}`,
        ...[160, 400, 720].map((w) => `photos/${owner.id}/${photoId}.w${w}`),
      ].sort(),
    );
    // The original is unchanged.
    const full = await viewer.client.fetch(`/photos/${photoId}`);
    expect(new Uint8Array(await full.arrayBuffer())).toEqual(bytes);

    // Deleting the photo deletes its widths too.
    await upload(owner.client, [{ bytes: imageBytes("png") }]);
    expect((await owner.client.json("DELETE", `/my/photos/${photoId}`)).status).toBe(204);
    expect((await allR2Keys(owner.id)).filter((k) => k.includes(photoId))).toEqual([]);
  });

  it("checks who may see the photo first, as for the photo itself", async () => {
    const { owner, photoId } = await ownerWithPicture();
    const visitor = new TestClient();
    expect((await visitor.json("GET", `/photos/${photoId}?w=400`)).status).toBe(401);
    const unverified = await registerMember();
    expect((await unverified.client.json("GET", `/photos/${photoId}?w=400`)).status).toBe(403);
    const viewer = await verifiedMember();
    await env.DB.prepare("UPDATE users SET status = 'suspended' WHERE id = ?").bind(owner.id).run();
    expect((await viewer.client.json("GET", `/photos/${photoId}?w=400`)).status).toBe(404);
  });

  it("an upload makes the new photos' widths before anyone asks for them", async () => {
    const { owner, photoId } = await ownerWithPicture();
    expect((await allR2Keys(owner.id)).filter((k) => k.includes(".w"))).toEqual(
      [160, 400, 720].map((w) => `photos/${owner.id}/${photoId}.w${w}`),
    );
  });

  it("a photo the Images binding cannot read is stored and served as it is at every width", async () => {
    const owner = await memberWithProfile();
    const bytes = imageBytes("png");
    const { status, body } = await upload(owner.client, [{ bytes }]);
    expect(status).toBe(201);
    const photoId = body.photos![0]!.id;
    const viewer = await verifiedMember();
    for (const path of [`/photos/${photoId}`, `/photos/${photoId}?w=400`]) {
      const res = await viewer.client.fetch(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/png");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    }
    // Nothing empty was kept in its place.
    expect(await r2Keys(owner.id)).toEqual(await allR2Keys(owner.id));
  });

  it("refuses a width it does not serve with 422", async () => {
    const { photoId } = await ownerWithPicture();
    const viewer = await verifiedMember();
    for (const w of ["100", "abc", "", "320.5"]) {
      const res = await viewer.client.json<{ errors: Record<string, string[]> }>(
        "GET",
        `/photos/${photoId}?w=${w}`,
      );
      expect(res.status, w).toBe(422);
      expect(res.body.errors).toEqual({ w: ["The width must be one of 160, 400, 720."] });
    }
  });
});
