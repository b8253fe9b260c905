import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PHOTO_WIDTHS } from "~/lib/photos";
import { cleanStoredPhotos } from "~/server/photos.server";
import { stripImageMetadata } from "~/server/photo-metadata.server";
import { verifiedMember } from "../helpers/members";
import { upload } from "../profile/fixtures";
import { GPS_PHOTOS_BASE64 } from "./fixtures/gps-photos";
import worker from "../../worker/index";

type Kind = keyof typeof GPS_PHOTOS_BASE64;

const NOW = Date.parse("2027-06-01T12:00:00.000Z");
const DAY = 24 * 3600_000;

/** One trigger of the cron (worker/scheduled.ts), at `scheduledTime`. */
async function runCron(overrides: Partial<Cloudflare.Env>, scheduledTime: number) {
  const controller = createScheduledController({ scheduledTime, cron: "*/15 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
}

const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const latin1 = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");

function crc32(bytes: Uint8Array) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

const ascii = (s: string) => Array.from(s, (ch) => ch.charCodeAt(0));
const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

/** A PNG chunk with its CRC. */
function pngChunk(type: string, data: number[]) {
  const body = new Uint8Array([...ascii(type), ...data]);
  return [...u32(data.length), ...body, ...u32(crc32(body))];
}

/**
 * The photos as a phone or an editor leaves them: sharp's files (EXIF with GPS, XMP, an ICC
 * profile), plus a JPEG comment and IPTC segment, and PNG text and time chunks.
 */
function dirtyPhoto(kind: Kind): Uint8Array<ArrayBuffer> {
  const bytes = fromBase64(GPS_PHOTOS_BASE64[kind]);
  if (kind === "jpeg") {
    const comment = [0xff, 0xfe, 0, 2 + 17, ...ascii("home: 12 Elm Road")];
    const iptc = ascii("Photoshop 3.0\0");
    const app13 = [0xff, 0xed, 0, 2 + iptc.length, ...iptc];
    return new Uint8Array([...bytes.subarray(0, 2), ...comment, ...app13, ...bytes.subarray(2)]);
  }
  if (kind === "png") {
    const text = pngChunk("tEXt", [...ascii("Comment"), 0, ...ascii("home: 12 Elm Road")]);
    const time = pngChunk("tIME", [0x07, 0xea, 11, 20, 8, 15, 0]);
    return new Uint8Array([...bytes.subarray(0, 33), ...text, ...time, ...bytes.subarray(33)]);
  }
  return bytes;
}

/** Everything that gives a photo's owner away; none of it may be served. */
const LEAKS = [
  "Exif",
  "eXIf",
  "EXIF",
  "XMP ",
  "xmpmeta",
  "SecretPhoneMaker",
  "HomeCam",
  "2026:11:20",
  "Elm Road",
  "Photoshop 3.0",
  "tEXt",
  "tIME",
  "iTXt",
  "zTXt",
];
const expectClean = (bytes: Uint8Array, what: string) => {
  const text = latin1(bytes);
  for (const leak of LEAKS) expect(text.includes(leak), `${what} carries ${leak}`).toBe(false);
};
const ICC: Record<Kind, string> = { jpeg: "ICC_PROFILE", png: "iCCP", webp: "ICCP" };

async function served(client: Awaited<ReturnType<typeof verifiedMember>>["client"], url: string) {
  const res = await client.fetch(url, { headers: { Accept: "image/*" } });
  expect(res.status, url).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * A member's two photos as an older upload left them (before uploads were cleaned): the files as
 * sent, and a width with metadata. Answers the member and the photos' rows.
 */
async function oldPhotos() {
  const owner = await verifiedMember();
  const up = await upload(owner.client, [
    { bytes: dirtyPhoto("jpeg"), name: "a.jpg", type: "image/jpeg" },
    { bytes: dirtyPhoto("png"), name: "b.png", type: "image/png" },
  ]);
  expect(up.status).toBe(201);
  const rows = (
    await env.DB.prepare("SELECT id, r2_key FROM photos WHERE user_id = ?1 ORDER BY id")
      .bind(owner.id)
      .all<{ id: string; r2_key: string }>()
  ).results;
  // As an older upload left them: the files as sent, and a width with metadata.
  for (const [i, row] of rows.entries()) {
    const kind = i === 0 ? "jpeg" : "png";
    const bytes = dirtyPhoto(kind);
    await env.PHOTOS.put(row.r2_key, bytes);
    await env.DB.prepare("UPDATE photos SET size = ?1 WHERE id = ?2")
      .bind(bytes.byteLength, row.id)
      .run();
  }
  await env.PHOTOS.put(`${rows[1]!.r2_key}.w160`, fromBase64(GPS_PHOTOS_BASE64.webp));

  return { owner, rows };
}

describe("clean photos", () => {
  for (const kind of ["jpeg", "png", "webp"] as const) {
    it(`stores and serves a ${kind} with GPS and XMP without them, at every width and as the original`, async () => {
      const dirty = dirtyPhoto(kind);
      // The file really carries what must go.
      for (const leak of ["SecretPhoneMaker", "xmpmeta"]) expect(latin1(dirty)).toContain(leak);

      const owner = await verifiedMember();
      const viewer = await verifiedMember();
      const up = await upload(owner.client, [
        { bytes: dirty, name: `p.${kind}`, type: `image/${kind}` },
      ]);
      expect(up.status).toBe(201);
      const photo = up.body.photos![0]!;
      const key = (await env.DB.prepare("SELECT r2_key FROM photos WHERE id = ?1")
        .bind(photo.id)
        .first<{ r2_key: string }>())!.r2_key;

      const stored = new Uint8Array(await (await env.PHOTOS.get(key))!.arrayBuffer());
      expectClean(stored, `stored ${kind}`);
      // The colour profile stays, and so does every byte of the picture itself.
      expect(latin1(stored)).toContain(ICC[kind]);
      if (kind === "jpeg") {
        const scan = (b: Uint8Array) => latin1(b).slice(latin1(b).indexOf("\xff\xda"));
        expect(scan(stored)).toBe(scan(dirty));
      }

      for (const client of [owner.client, viewer.client]) {
        const original = await served(client, `/photos/${photo.id}`);
        expectClean(original, `original ${kind}`);
        expect(original).toEqual(stored);
        for (const width of PHOTO_WIDTHS) {
          const bytes = await served(client, `/photos/${photo.id}?w=${width}`);
          expect(bytes.byteLength, `${kind} at ${width}`).toBeGreaterThan(100);
          expectClean(bytes, `${kind} at ${width}`);
        }
      }
    });
  }

  it("cleans photos stored before uploads were cleaned: on the first serve, and by the resumable step", async () => {
    const { owner, rows } = await oldPhotos();

    // Served: clean at once.
    expectClean(await served(owner.client, `/photos/${rows[0]!.id}`), "an old jpeg served");

    // The step, a photo at a time from the start, until it says it is done.
    const before = rows[0]!.id < rows[1]!.id ? "" : rows[1]!.id;
    let next: string | null = before || null;
    let rewritten = 0;
    let turns = 0;
    do {
      const step = await cleanStoredPhotos(env, next, 1);
      rewritten += step.rewritten;
      next = step.next;
      turns += 1;
    } while (next && turns < 10_000);
    expect(rewritten).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      for (const key of [row.r2_key, ...PHOTO_WIDTHS.map((w) => `${row.r2_key}.w${w}`)]) {
        const object = await env.PHOTOS.get(key);
        if (object) expectClean(new Uint8Array(await object.arrayBuffer()), key);
      }
    }
    // Running it again changes nothing.
    expect((await cleanStoredPhotos(env, null, 10_000)).rewritten).toBe(0);
  });

  it("the housekeeping cron walks the stored photos a step per trigger, goes on where it stopped, and stops for good at the end", async () => {
    const { rows } = await oldPhotos();
    await env.DB.prepare("DELETE FROM job_cursors").run();
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM photos").first<{ n: number }>();
    const cursor = () =>
      env.DB.prepare("SELECT cursor, finished_at, updated_at FROM job_cursors WHERE name = ?1")
        .bind("clean_stored_photos")
        .first<{ cursor: string | null; finished_at: string | null; updated_at: string }>();

    // One photo a step and one step a trigger: the walk takes a trigger per photo, and one more
    // that finds none left.
    let triggers = 0;
    let previous: string | null = null;
    while (!(await cursor())?.finished_at && triggers <= stored!.n + 1) {
      await runCron({ HOUSEKEEPING_BATCH: "1/1" }, NOW + triggers * 15 * 60_000);
      triggers += 1;
      const now = await cursor();
      if (!now?.finished_at) {
        // Each trigger went on after the photo the one before stopped at.
        expect(now!.cursor! > (previous ?? "")).toBe(true);
        previous = now!.cursor;
      }
    }
    expect(triggers).toBe(stored!.n + 1);
    for (const row of rows) {
      for (const key of [row.r2_key, ...PHOTO_WIDTHS.map((w) => `${row.r2_key}.w${w}`)]) {
        const object = await env.PHOTOS.get(key);
        if (object) expectClean(new Uint8Array(await object.arrayBuffer()), key);
      }
    }

    // Finished: a later trigger reads its row and does nothing more.
    const finished = await cursor();
    await env.PHOTOS.put(rows[0]!.r2_key, dirtyPhoto("jpeg"));
    await runCron({ HOUSEKEEPING_BATCH: "1/1" }, NOW + DAY);
    expect(await cursor()).toEqual(finished);
    const untouched = new Uint8Array(await (await env.PHOTOS.get(rows[0]!.r2_key))!.arrayBuffer());
    expect(latin1(untouched)).toContain("Elm Road");
  });

  it("gives back a clean file unchanged, and refuses broken structure", () => {
    for (const kind of ["jpeg", "png", "webp"] as const) {
      const once = stripImageMetadata(dirtyPhoto(kind), kind)!;
      expect(stripImageMetadata(once, kind)).toEqual(once);
      expect(stripImageMetadata(once.subarray(0, 40), kind)).toBeNull();
    }
  });
});
