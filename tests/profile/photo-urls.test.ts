import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { imageDimensions } from "~/lib/image-type";
import { PHOTO_WIDTHS, type PhotoUrls } from "~/lib/photos";
import { mintPhotoUrl, PHOTO_URL_MAX_LIFETIME_SECONDS } from "~/server/photo-urls.server";
import { verifiedMember } from "../helpers/members";
import { failingDatabase, fetchWith, sessionsThrough } from "../helpers/worker";
import { block } from "../safety/helpers";
import { gradientPng, memberWithProfile, upload } from "./fixtures";

/**
 * Signed photo addresses (docs/decisions/043-signed-photo-urls.md): a good one is served without
 * the session or a database statement, from this data centre's cache or streamed from R2; anything
 * else (none, forged, expired) is checked as before.
 */

type Member = Awaited<ReturnType<typeof verifiedMember>>;

/** The test database, counting the statements the Worker prepares, batches or runs on it. */
function countingDatabase() {
  const db = env.DB;
  const seen: string[] = [];
  const statements = {
    prepare: (query: string) => {
      seen.push(query);
      return db.prepare(query);
    },
    batch: (statements: D1PreparedStatement[]) => {
      seen.push(`batch of ${statements.length}`);
      return db.batch(statements);
    },
    exec: (query: string) => {
      seen.push(query);
      return db.exec(query);
    },
    dump: db.dump.bind(db),
  };
  const counted = {
    ...statements,
    withSession: sessionsThrough(statements),
  } as unknown as D1Database;
  return { db: counted, seen };
}

/** An R2 bucket that cannot be reached: anything served comes from somewhere else. */
const failingBucket = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error("R2 is unreachable");
    },
  },
) as R2Bucket;

/** A member with a real picture (the Images binding makes its widths) and a second photo. */
async function ownerWithPictures() {
  const owner = await memberWithProfile();
  const res = await upload(owner.client, [
    { bytes: gradientPng(1000, 800) },
    { bytes: gradientPng(600, 600) },
  ]);
  expect(res.status).toBe(201);
  const [main, second] = res.body.photos!;
  return { owner, photoId: main!.id, secondId: second!.id };
}

/** The addresses `viewer` is handed for the owner's main photo (the member's JSON profile). */
async function urlsSeenBy(viewer: Member, username: string): Promise<PhotoUrls> {
  const res = await viewer.client.json<{ member: { photo_urls: PhotoUrls | null } }>(
    "GET",
    `/members/${username}`,
  );
  expect(res.status).toBe(200);
  return res.body.member.photo_urls!;
}

/** The Worker with no cookie (no session) and the given bindings replaced. */
const anonymous = (url: string, overrides: Partial<Cloudflare.Env> = {}) =>
  fetchWith(overrides, url);

/** The Worker as `member`'s browser (their session cookie), with bindings replaced. */
const asMember = (member: Member, url: string, overrides: Partial<Cloudflare.Env> = {}) =>
  fetchWith(overrides, url, { headers: { Cookie: member.client.cookieHeader() } });

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

/** The address with one query parameter changed. */
function withParam(url: string, name: string, value: string) {
  const u = new URL(url, "http://localhost");
  u.searchParams.set(name, value);
  return `${u.pathname}${u.search}`;
}

const expiryOf = (url: string) => Number(new URL(url, "http://localhost").searchParams.get("exp"));

afterEach(() => {
  vi.useRealTimers();
});

describe("signed photo addresses", () => {
  it("serve the photo at its width with no session and no database statement", async () => {
    const { owner } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const urls = await urlsSeenBy(viewer, owner.details.username);
    for (const width of PHOTO_WIDTHS) {
      const url = urls[width];
      expect(url).toMatch(
        new RegExp(`^/photos/[0-9a-z]+\\?w=${width}&m=${owner.id}&exp=\\d+&sig=[\\w-]{22}$`),
      );
      // The first view (nothing cached yet) with a database that fails on any statement.
      const cold = await anonymous(url, { DB: failingDatabase("D1 was used") });
      expect(cold.status, url).toBe(200);
      expect(cold.headers.get("Content-Type")).toBe("image/webp");
      expect(cold.headers.get("Set-Cookie")).toBeNull();
      expect(cold.headers.get("Vary")).toBeNull();
      expect(cold.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
      // Kept by the browser (never a shared cache) for as long as the address is good.
      const maxAge = Number(
        /^private, max-age=(\d+), immutable$/.exec(cold.headers.get("Cache-Control") ?? "")?.[1],
      );
      expect(maxAge).toBeGreaterThan(0);
      expect(maxAge).toBeLessThanOrEqual(PHOTO_URL_MAX_LIFETIME_SECONDS);
      expect(Math.abs(expiryOf(url) - Date.now() / 1000 - maxAge)).toBeLessThan(5);
      const bytes = await bytesOf(cold);
      expect(imageDimensions(bytes, "webp")).toEqual({ width, height: (width * 4) / 5 });

      // Counted: not one statement.
      const counting = countingDatabase();
      const again = await anonymous(url, { DB: counting.db });
      expect(again.status).toBe(200);
      expect(await bytesOf(again)).toEqual(bytes);
      expect(counting.seen).toEqual([]);
    }
  });

  it("a view from this data centre's cache reads neither the database nor R2", async () => {
    const { owner } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const url = (await urlsSeenBy(viewer, owner.details.username))[400];
    const first = await anonymous(url);
    expect(first.status).toBe(200);
    const bytes = await bytesOf(first);
    const etag = first.headers.get("ETag");
    expect(etag).toMatch(/^"[^"]+"$/);

    const cached = await anonymous(url, {
      DB: failingDatabase("D1 was used"),
      PHOTOS: failingBucket,
    });
    expect(cached.status).toBe(200);
    expect(cached.headers.get("Content-Type")).toBe("image/webp");
    expect(cached.headers.get("Content-Length")).toBe(String(bytes.byteLength));
    expect(cached.headers.get("ETag")).toBe(etag);
    expect(await bytesOf(cached)).toEqual(bytes);

    // The browser's copy is still good: 304, from the cache too.
    const revalidated = await fetchWith(
      { DB: failingDatabase("D1 was used"), PHOTOS: failingBucket },
      url,
      { headers: { "If-None-Match": etag! } },
    );
    expect(revalidated.status).toBe(304);
  });

  it("every photo address in a page is signed", async () => {
    const { owner } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const res = await viewer.client.fetch(`/members/${owner.details.username}`, {
      headers: { Accept: "text/html" },
    });
    expect(res.status).toBe(200);
    // The markup's addresses (`&amp;`) and the page's data (`\u0026` in its JSON).
    const html = (await res.text()).replace(/&amp;|\\u0026/g, "&");
    const addresses = html.match(/\/photos\/[^"\s,\\]+/g) ?? [];
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) {
      expect(address).toMatch(/^\/photos\/[0-9a-z]+\?w=\d+&m=[0-9a-z]+&exp=\d+&sig=[\w-]{22}$/);
    }
  });

  it("are the same within a half hour, so that browsers and the cache reuse them", async () => {
    const { owner } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const first = await urlsSeenBy(viewer, owner.details.username);
    const other = await verifiedMember();
    const second = await urlsSeenBy(other, owner.details.username);
    // Minted a moment apart: the same unless a half hour ended in between (then one bucket on).
    expect(expiryOf(second[400]) - expiryOf(first[400])).toBeOneOf([0, 1800]);
    if (expiryOf(second[400]) === expiryOf(first[400])) expect(second).toEqual(first);
  });
});

describe("an address that is not good is checked as an unsigned one", () => {
  it("expired: the checked path (a signed-in viewer still sees the photo; no session is 401)", async () => {
    const { owner, photoId } = await ownerWithPictures();
    const viewer = await verifiedMember();
    // Minted two hours ago: expired an hour ago at the latest.
    const old = await mintPhotoUrl(env, { id: photoId, owner: owner.id }, Date.now() - 7200_000);
    expect(expiryOf(old[400]) * 1000).toBeLessThan(Date.now());
    expect((await anonymous(old[400])).status).toBe(401);
    // A tab left open for hours keeps its photos: the session and the rule are checked.
    const counting = countingDatabase();
    const checked = await asMember(viewer, old[400], { DB: counting.db });
    expect(checked.status).toBe(200);
    expect(checked.headers.get("Vary")).toBe("Cookie");
    expect(imageDimensions(await bytesOf(checked), "webp")).toEqual({ width: 400, height: 320 });
    expect(counting.seen.length).toBeGreaterThan(0);
  });

  it("forged: another width, photo, owner or expiry, a wrong or foreign signature", async () => {
    const { owner, photoId, secondId } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const stranger = await verifiedMember();
    const url = (await urlsSeenBy(viewer, owner.details.username))[400];
    expect((await anonymous(url)).status).toBe(200);
    const sig = new URL(url, "http://localhost").searchParams.get("sig")!;
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    const foreign = await mintPhotoUrl(
      { APP_KEY: "another-app-key-that-is-long-enough-for-hmac-0123456789" },
      { id: photoId, owner: owner.id },
    );
    const forged = {
      "another width": withParam(url, "w", "720"),
      "another photo": url.replace(photoId, secondId),
      "another owner": withParam(url, "m", stranger.id),
      "a later expiry": withParam(url, "exp", String(expiryOf(url) + 1800)),
      "a wrong signature": withParam(url, "sig", flipped),
      "a short signature": withParam(url, "sig", sig.slice(0, 21)),
      "no signature": url.replace(/&sig=.*$/, ""),
      "another key's signature": foreign[400],
    };
    for (const [what, address] of Object.entries(forged)) {
      // Not served without a session, as an unsigned address is not.
      expect((await anonymous(address)).status, what).toBe(401);
      // A signed-in member who may see the photo gets it through the check.
      const checked = await asMember(viewer, address);
      expect(checked.status, what).toBe(200);
      expect(checked.headers.get("Vary"), what).toBe("Cookie");
      await checked.body?.cancel();
    }
  });

  it("the check still hides a photo from a member blocked either way", async () => {
    const { owner, photoId } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const url = (await urlsSeenBy(viewer, owner.details.username))[400];
    await block(owner, viewer);
    for (const address of [
      `/photos/${photoId}`,
      `/photos/${photoId}?w=400`,
      withParam(url, "sig", "A".repeat(22)),
    ]) {
      expect((await asMember(viewer, address)).status, address).toBe(404);
    }
  });
});

describe("blocks and deletions stop an address", () => {
  it("after a block the address works until it expires, then no more", async () => {
    const { owner } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const url = (await urlsSeenBy(viewer, owner.details.username))[400];
    await block(owner, viewer);
    // The viewer is handed no new address: the profile is gone for them.
    expect((await viewer.client.json("GET", `/members/${owner.details.username}`)).status).toBe(
      404,
    );
    // The address handed out before the block lasts its lifetime (at most an hour: ADR 043)…
    const within = await anonymous(url);
    expect(within.status).toBe(200);
    await within.body?.cancel();
    // …and not a second longer, with or without the viewer's session.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime((expiryOf(url) + 1) * 1000);
    expect((await anonymous(url)).status).toBe(401);
    expect((await asMember(viewer, url)).status).toBe(404);
  });

  it("a deleted photo's address is 404 at once (R2 and this data centre's cache purged)", async () => {
    const { owner, photoId } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const urls = await urlsSeenBy(viewer, owner.details.username);
    // Every width viewed: each is in the cache.
    for (const width of PHOTO_WIDTHS) expect((await anonymous(urls[width])).status).toBe(200);
    expect((await owner.client.json("DELETE", `/my/photos/${photoId}`)).status).toBe(204);
    for (const width of PHOTO_WIDTHS) {
      expect((await anonymous(urls[width], { DB: failingDatabase("D1 was used") })).status).toBe(
        404,
      );
    }
  });

  it("a deleted account's photo addresses are 404 at once", async () => {
    const { owner, secondId } = await ownerWithPictures();
    const viewer = await verifiedMember();
    const main = await urlsSeenBy(viewer, owner.details.username);
    const second = await mintPhotoUrl(env, { id: secondId, owner: owner.id });
    for (const url of [main[160], main[720], second[400]]) {
      expect((await anonymous(url)).status).toBe(200);
    }
    await owner.client.json("POST", "/confirm-password", { password: owner.details.password });
    expect((await owner.client.json("DELETE", "/my/account")).status).toBe(200);
    for (const url of [main[160], main[720], second[400]]) {
      expect((await anonymous(url)).status, url).toBe(404);
    }
  });
});
