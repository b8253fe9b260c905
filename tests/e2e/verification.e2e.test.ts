/**
 * Photo verification in Chromium (docs/decisions/042), with Chromium's fake camera: a member with a
 * profile photo opens Verify your photos, sees the pose to copy, takes the selfie with the camera
 * and sends it; the moderator sees it on /moderation beside the member's profile photos and
 * approves it; the member's profile and search card then carry the badge, and Discover's
 * "Verified photos only" finds them. A second member sends a chosen photo instead, is turned down
 * with a reason they read in plain words, and tries again with the camera. In a browser that
 * refuses the camera, a third member is told so in plain words, at the prompt and on the next
 * visit, sends a photo chosen from the device instead, and hears of the approval on the bell.
 */
import { deflateSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { describe, expect, inject, test } from "vitest";
import {
  CAMERA_MESSAGES,
  POSES,
  REJECT_REASONS,
  VERIFICATION_MESSAGES,
} from "../../app/schemas/verification";
import { seriousViolations } from "./axe";
import {
  ACTION_TIMEOUT_MS,
  baseUrl,
  openPage,
  registerVerifiedMember,
  SESSION_COOKIE,
  useBrowser,
  visit,
  waitForPath,
} from "./helpers";

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** A PNG of one colour, made here. */
function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3)]);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** An image's width once the browser has it (0 until it has loaded; a broken image stays 0). */
const naturalWidth = (page: Page, name: string) =>
  page
    .getByRole("img", { name, exact: true })
    .evaluate((img: HTMLImageElement) => img.naturalWidth);

/** How long a poll waits for what the browser does on its own time (an image, a camera). */
const WAIT = { timeout: ACTION_TIMEOUT_MS };

const status = (page: Page) => page.getByTestId("verification-status");

/**
 * Keeps the camera streams the page's own code opens (getUserMedia, called through as it is), so
 * the test can see whether the camera is still on: a live track lights the camera.
 */
async function watchCamera(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const devices = navigator.mediaDevices;
    const open = devices.getUserMedia.bind(devices);
    const opened: MediaStream[] = [];
    Object.assign(window, { __cameraStreams: opened });
    devices.getUserMedia = async (constraints) => {
      const stream = await open(constraints);
      opened.push(stream);
      return stream;
    };
  });
}

const liveCameraTracks = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { __cameraStreams: MediaStream[] }).__cameraStreams
        .flatMap((s) => s.getTracks())
        .filter((t) => t.readyState === "live").length,
  );

/** A member signed in, with one profile photo added from Settings › Profile. */
async function memberWithPhoto(browser: Browser, prefix: string, rgb: [number, number, number]) {
  const { member, page } = await registerVerifiedMember(browser, prefix);
  await watchCamera(page);
  await visit(page, "/settings/profile");
  await page.locator('input[type="file"][name="photos"]').setInputFiles({
    name: "me.png",
    mimeType: "image/png",
    buffer: png(600, 800, rgb),
  });
  await page.getByText("Photo added.", { exact: true }).waitFor({ timeout: 30_000 });
  return { member, page };
}

/** The pose the page asks for: its instruction is one of POSES, and the drawing is of it. */
async function poseShown(page: Page) {
  const instruction = await page.getByTestId("pose-instruction").textContent();
  const pose = POSES.find((p) => p.instruction === instruction);
  expect(pose, `pose instruction "${instruction}"`).toBeDefined();
  const drawing = page.locator(`svg.pose-drawing[data-pose="${pose!.id}"]`);
  await drawing.waitFor();
  expect((await drawing.boundingBox())!.width).toBeGreaterThan(0);
  return pose!;
}

/** Opens the camera, takes the selfie and checks it went into the form; its width. */
async function takeSelfie(page: Page): Promise<number> {
  await page.getByRole("button", { name: /^(Use the camera|Take it again)$/ }).click();
  const camera = page.getByLabel("Camera", { exact: true });
  await camera.waitFor();
  // "Take selfie" waits for the camera's first frame.
  const take = page.getByRole("button", { name: "Take selfie" });
  await expect.poll(() => take.isEnabled(), { timeout: ACTION_TIMEOUT_MS }).toBe(true);
  expect(await camera.evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0);
  expect(await liveCameraTracks(page)).toBe(1);
  await take.click();
  await expect.poll(() => naturalWidth(page, "Your selfie"), WAIT).toBeGreaterThan(0);
  // The camera is off once the selfie is taken.
  expect(await camera.count()).toBe(0);
  await expect.poll(() => liveCameraTracks(page), WAIT).toBe(0);
  const file = await page
    .locator('input[type="file"][name="selfie"]')
    .evaluate((input: HTMLInputElement) => {
      const f = input.files?.[0];
      return f ? { type: f.type, size: f.size } : null;
    });
  expect(file?.type).toBe("image/jpeg");
  expect(file?.size).toBeGreaterThan(1000);
  return naturalWidth(page, "Your selfie");
}

async function sendSelfie(page: Page) {
  await page.getByRole("button", { name: "Send for verification" }).click();
  await page.getByText(VERIFICATION_MESSAGES.submitted).waitFor();
  await status(page).filter({ hasText: "Your selfie is waiting for a moderator." }).waitFor();
  expect(await page.getByRole("button", { name: "Send for verification" }).count()).toBe(0);
}

/** The suite's moderator (tests/e2e/global-setup.ts) on /moderation. */
async function moderator(browser: Browser) {
  const page = await openPage(browser, { label: "moderator" });
  await page
    .context()
    .addCookies([{ name: SESSION_COOKIE, value: inject("e2eModerator").session, url: baseUrl() }]);
  await visit(page, "/moderation");
  return page;
}

const request = (mod: Page, username: string) =>
  mod
    .getByRole("region", { name: "Photo verification" })
    .getByTestId("verification-item")
    .filter({ hasText: `@${username}` });

/** The search on Discover, with "Verified photos only" as given; whether `username` is found. */
async function findsInDiscover(page: Page, username: string, verifiedOnly: boolean) {
  await visit(page, "/my/matches");
  const form = page.getByRole("search", { name: "Search members" });
  await form.getByText("Filters", { exact: true }).click();
  await form.getByLabel("Keywords").fill(username);
  await form.getByLabel("Verified photos only").setChecked(verifiedOnly);
  await form.getByRole("button", { name: "Search" }).click();
  await page
    .getByTestId("search-summary")
    .filter({ hasText: `found for “${username}”` })
    .waitFor();
  const card = page.getByRole("article", { name: new RegExp(`^${username}, \\d+$`) });
  return { found: (await card.count()) > 0, card };
}

describe("photo verification in Chromium", () => {
  const browser = useBrowser([
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
  ]);

  test("a selfie from the camera copying the pose, approved: the badge and the filter", async () => {
    const { member: vera, page } = await memberWithPhoto(browser(), "vera", [200, 120, 90]);

    // From My profile's "Verify your photos".
    await visit(page, "/my/profile");
    await page.getByRole("link", { name: "Verify your photos" }).click();
    await waitForPath(page, "/my/verification");
    await page.getByRole("heading", { name: "Verify your photos" }).waitFor();
    const pose = await poseShown(page);
    expect(await seriousViolations(page)).toEqual([]);

    const width = await takeSelfie(page);
    expect(await seriousViolations(page)).toEqual([]);
    await sendSelfie(page);

    // The moderator: the selfie beside the profile photo, and the pose asked.
    const mod = await moderator(browser());
    const item = request(mod, vera.username);
    await item.getByText(`Pose asked: ${pose.instruction}`).waitFor();
    await expect.poll(() => naturalWidth(mod, `Selfie of @${vera.username}`), WAIT).toBe(width);
    await expect
      .poll(() => naturalWidth(mod, `Profile photo 1 of @${vera.username}`), WAIT)
      .toBeGreaterThan(0);
    const selfieUrl = await item
      .getByRole("img", { name: `Selfie of @${vera.username}` })
      .getAttribute("src");
    await item.getByRole("button", { name: `Approve the selfie of @${vera.username}` }).click();
    await mod.getByText(VERIFICATION_MESSAGES.approved).waitFor();
    await item.waitFor({ state: "detached" });
    // The selfie is erased with the decision.
    expect(await mod.evaluate(async (url) => (await fetch(url!)).status, selfieUrl)).toBe(404);

    // The member's page says so, and their profile carries the badge.
    await page.reload();
    await status(page).filter({ hasText: "Your profile is verified." }).waitFor();
    expect(await page.getByRole("button", { name: "Send for verification" }).count()).toBe(0);
    await visit(page, `/members/${vera.username}`);
    await page
      .getByRole("heading", { level: 1 })
      .getByRole("img", { name: "Verified photos" })
      .waitFor();

    // Another member finds them with "Verified photos only", the badge on the card.
    const { member: other, page: seeker } = await registerVerifiedMember(browser(), "seeker");
    const verified = await findsInDiscover(seeker, vera.username, true);
    expect(verified.found).toBe(true);
    await verified.card.getByRole("img", { name: "Verified photos" }).waitFor();
    // …and the filter leaves out a member who is not verified (found without it).
    await visit(page, "/dashboard");
    expect((await findsInDiscover(page, other.username, true)).found).toBe(false);
    const unfiltered = await findsInDiscover(page, other.username, false);
    expect(unfiltered.found).toBe(true);
    expect(await unfiltered.card.getByRole("img", { name: "Verified photos" }).count()).toBe(0);
  });

  test("a chosen photo turned down: the reason in plain words, and a new attempt", async () => {
    const { member: rex, page } = await memberWithPhoto(browser(), "rex", [70, 140, 210]);
    await visit(page, "/my/verification");
    await poseShown(page);
    // The camera opened, then a photo chosen from the device instead: the camera goes off.
    await page.getByRole("button", { name: "Use the camera" }).click();
    await page.getByRole("button", { name: "Take selfie" }).waitFor();
    await page.getByLabel("Or choose a photo").setInputFiles({
      name: "selfie.png",
      mimeType: "image/png",
      buffer: png(480, 640, [90, 90, 90]),
    });
    await expect.poll(() => naturalWidth(page, "Your selfie"), WAIT).toBe(480);
    expect(await page.getByLabel("Camera", { exact: true }).count()).toBe(0);
    await expect.poll(() => liveCameraTracks(page), WAIT).toBe(0);
    await sendSelfie(page);

    const mod = await moderator(browser());
    const item = request(mod, rex.username);
    await expect.poll(() => naturalWidth(mod, `Selfie of @${rex.username}`), WAIT).toBe(480);
    await item
      .getByLabel(`Why the selfie of @${rex.username} is turned down`)
      .selectOption({ label: "Wrong pose" });
    await item.getByRole("button", { name: `Reject the selfie of @${rex.username}` }).click();
    await mod.getByText(VERIFICATION_MESSAGES.rejected).waitFor();
    await item.waitFor({ state: "detached" });

    // The member reads why, and may try again with a new pose, this time with the camera.
    await page.reload();
    await status(page).filter({ hasText: REJECT_REASONS.pose_mismatch }).waitFor();
    expect(await status(page).textContent()).not.toContain("pose_mismatch");
    await poseShown(page);
    await takeSelfie(page);
    await sendSelfie(page);
    await mod.reload();
    await request(mod, rex.username).waitFor();
  });
});

describe("photo verification in Chromium with the camera refused", () => {
  // A camera is there (the fake one), but the browser refuses it: every permission prompt is
  // answered "Block", as a member who refuses the camera does.
  const browser = useBrowser(["--use-fake-device-for-media-stream", "--deny-permission-prompts"]);

  const problem = (page: Page) => page.getByTestId("camera-problem");

  /** The page's focused element's id. */
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");

  test("told the camera is off, the member sends a photo chosen instead, and hears of the approval", async () => {
    const { member: nora, page } = await memberWithPhoto(browser(), "nora", [120, 180, 90]);
    await visit(page, "/my/verification");
    await poseShown(page);
    // Nothing is said about the camera before it is asked for.
    expect(await problem(page).count()).toBe(0);

    // The member asks for the camera; the browser refuses: the page says so in plain words, the
    // camera button goes, and the focus moves to the file input that takes its place.
    await page.getByRole("button", { name: "Use the camera" }).click();
    await problem(page).filter({ hasText: CAMERA_MESSAGES.refused }).waitFor();
    expect(await page.getByRole("button", { name: "Use the camera" }).count()).toBe(0);
    expect(await page.getByLabel("Camera", { exact: true }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Take selfie" }).count()).toBe(0);
    expect(await liveCameraTracks(page)).toBe(0);
    await expect.poll(() => focused(page), WAIT).toBe("selfie-file");
    expect(await seriousViolations(page)).toEqual([]);

    // Next visit: the browser still refuses, and the page says so at once, with no button that
    // could only fail.
    await page.reload();
    await poseShown(page);
    await problem(page).filter({ hasText: CAMERA_MESSAGES.refused }).waitFor();
    expect(await page.getByRole("button", { name: "Use the camera" }).count()).toBe(0);

    // A photo chosen from the device instead, sent as the selfie.
    await page.getByLabel("Choose a photo of yourself").setInputFiles({
      name: "selfie.png",
      mimeType: "image/png",
      buffer: png(480, 640, [60, 60, 60]),
    });
    await expect.poll(() => naturalWidth(page, "Your selfie"), WAIT).toBe(480);
    await sendSelfie(page);

    // The moderator sees it and approves it.
    const mod = await moderator(browser());
    const item = request(mod, nora.username);
    await expect.poll(() => naturalWidth(mod, `Selfie of @${nora.username}`), WAIT).toBe(480);
    await item.getByRole("button", { name: `Approve the selfie of @${nora.username}` }).click();
    await mod.getByText(VERIFICATION_MESSAGES.approved).waitFor();

    // The member hears of it on the bell, and the notice leads to their verification page.
    await visit(page, "/dashboard");
    await page.getByRole("link", { name: "Notifications, 1 unread" }).waitFor();
    await visit(page, "/notifications");
    await page
      .getByRole("link", { name: "Your photos are verified: your profile now shows the badge" })
      .click();
    await waitForPath(page, "/my/verification");
    await status(page).filter({ hasText: "Your profile is verified." }).waitFor();
  });
});
