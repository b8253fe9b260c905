import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { imageDimensions } from "~/lib/image-type";
import { verifiedMember } from "../helpers/members";
import { imageBytes, upload } from "../profile/fixtures";

/**
 * Issue 12, finding 5: image bombs and disguised files. Dimensions are read from the PNG, JPEG
 * or WebP header and refused past 8000 pixels a side or 40 megapixels; a file that starts like
 * an image but is not a well-formed one (HTML after a JPEG header) is not stored.
 */
const TOO_LARGE = "Each photo must be at most 8000 pixels on each side and 40 megapixels in all";

async function stored(userId: string) {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM photos WHERE user_id = ?1")
    .bind(userId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("image checks", () => {
  it("reads the dimensions of each format", () => {
    for (const kind of ["png", "jpeg", "webp"] as const) {
      expect(imageDimensions(imageBytes(kind, 2048, { width: 640, height: 480 }), kind)).toEqual({
        width: 640,
        height: 480,
      });
    }
  });

  it("refuses image bombs with the limit in the message, and stores nothing", async () => {
    const member = await verifiedMember();
    for (const [kind, width, height] of [
      ["png", 20000, 20000],
      ["png", 60000, 60000],
      ["jpeg", 9000, 100],
      ["webp", 7000, 7000],
    ] as const) {
      const res = await upload(member.client, [
        { bytes: imageBytes(kind, 4096, { width, height }), type: `image/${kind}` },
      ]);
      expect(res.status, `${kind} ${width}x${height}`).toBe(422);
      expect(res.body).toEqual({ message: TOO_LARGE, errors: { photos: [TOO_LARGE] } });
    }
    expect(await stored(member.id)).toBe(0);
    const fine = await upload(member.client, [
      { bytes: imageBytes("png", 4096, { width: 8000, height: 5000 }) },
    ]);
    expect(fine.status).toBe(201);
  });

  it("refuses a file that only starts like an image", async () => {
    const member = await verifiedMember();
    const html = new TextEncoder().encode("<!doctype html><html><script>alert(1)</script></html>");
    const jpegThenHtml = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, ...html]);
    const png = imageBytes("png", 1024);
    const pngWithoutEnd = png.slice(0, png.length - 12);
    const jpeg = imageBytes("jpeg", 2048);
    const jpegWithHtmlInside = Uint8Array.from([
      ...jpeg.slice(0, 100),
      ...html,
      ...jpeg.slice(100),
    ]);
    for (const [label, bytes] of [
      ["jpeg header + html", jpegThenHtml],
      ["png without IEND", pngWithoutEnd],
      ["jpeg without EOI", jpeg.slice(0, jpeg.length - 2)],
      ["html inside a jpeg", jpegWithHtmlInside],
    ] as const) {
      const res = await upload(member.client, [
        { bytes: new Uint8Array(bytes), type: "image/jpeg" },
      ]);
      expect(res.status, label).toBe(415);
      expect(res.body, label).toMatchObject({ message: "Only image files are allowed" });
    }
    expect(await stored(member.id)).toBe(0);
  });
});
