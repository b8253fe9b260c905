/**
 * Photos, voice notes and calls in Chromium (docs/api.md "Chat: reactions, delivery, photos,
 * voice, calls"): two matched members in two browser contexts, with Chromium's fake camera and
 * microphone. A photo arrives blurred and is revealed with a tap; a view-once photo opens once and
 * is gone for both; a voice note recorded in one browser plays in the other; a video call placed
 * by one and accepted by the other connects both with frames flowing, and ends as a line.
 */
import { deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { idOf, likeFromPage } from "./api-member";
import { registerVerifiedMember, useBrowser, visit } from "./helpers";

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** A 64×48 PNG of one colour, made here (the browser decodes it before sending). */
function png(width = 64, height = 48): Buffer {
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
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0xc8)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const connected = (page: Page) => page.locator('section.thread[data-connected="true"]').waitFor();

describe("photos, voice notes and calls in Chromium", () => {
  const browser = useBrowser([
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--autoplay-policy=no-user-gesture-required",
    // Both browsers are on this machine: their host candidates, as they are.
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    "--allow-loopback-in-peer-connection",
  ]);

  /** Two members who like each other, each with their conversation open. */
  async function matchedAndOpen() {
    const { member: alice, page: a } = await registerVerifiedMember(browser(), "alice");
    const { member: bob, page: b } = await registerVerifiedMember(browser(), "bob");
    for (const [page, other] of [
      [a, bob.username],
      [b, alice.username],
    ] as const) {
      const status = await likeFromPage(page, await idOf(page, other));
      expect([200, 201]).toContain(status);
    }
    await visit(a, `/members/${bob.username}`);
    await a.getByRole("button", { name: `Message ${bob.username}` }).click();
    await a.getByRole("region", { name: `Conversation with ${bob.username}` }).waitFor();
    const composer = a.getByLabel("Message", { exact: true });
    await composer.fill("Hi Bob!");
    await composer.press("Enter");
    await visit(b, "/chat");
    await b.getByTestId("conversation-item").filter({ hasText: alice.username }).click();
    await b.getByRole("region", { name: `Conversation with ${alice.username}` }).waitFor();
    await b.getByTestId("message").filter({ hasText: "Hi Bob!" }).waitFor();
    for (const page of [a, b]) await connected(page);
    return { alice, bob, a, b };
  }

  async function sendPhoto(page: Page, viewOnce: boolean) {
    await page.getByTestId("chat-photo-input").setInputFiles({
      name: "sunset.png",
      mimeType: "image/png",
      buffer: png(),
    });
    const sheet = page.getByRole("dialog", { name: "Send this photo?" });
    await sheet.waitFor();
    if (viewOnce) await sheet.getByLabel("View once").check();
    await sheet.getByRole("button", { name: "Send photo" }).click();
  }

  test("a photo arrives blurred and shows when tapped; a view-once photo opens once, then is gone", async () => {
    const { a, b } = await matchedAndOpen();

    await sendPhoto(a, false);
    await a.getByRole("img", { name: "Photo you sent" }).waitFor();
    const reveal = b.getByRole("button", { name: "Show photo" });
    await reveal.waitFor();
    expect(await reveal.locator("img").getAttribute("data-blurred")).toBe("true");
    await reveal.click();
    const shown = b.getByRole("img", { name: "Photo", exact: true });
    await shown.waitFor();
    expect(await shown.getAttribute("data-blurred")).toBeNull();
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64);

    await sendPhoto(a, true);
    await a.getByText("View once photo · Not opened yet").waitFor();
    const open = b.getByRole("button", { name: /View once photo · tap to open/ });
    await open.click();
    const viewer = b.getByRole("dialog", { name: "View once photo" });
    const image = viewer.getByRole("img", { name: "View once photo" });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64);
    await viewer.getByRole("button", { name: "Close" }).click();
    await b.getByText("Photo opened").waitFor();
    // Gone for both: the sender sees it opened, live; after a reload nothing opens it again.
    await a.getByText("View once photo · Opened").waitFor();
    await b.reload();
    await b.getByText("Photo opened").waitFor();
    expect(await b.getByRole("button", { name: /View once photo/ }).count()).toBe(0);
  });

  test("a photo sent offline waits on the device, and arrives once after a reload online", async () => {
    const { a, b } = await matchedAndOpen();
    const context = a.context();
    const chatUrl = a.url();
    const mine = (page: Page) =>
      page
        .getByTestId("message")
        .filter({ has: page.getByRole("img", { name: "Photo you sent" }) });

    await context.setOffline(true);
    await sendPhoto(a, false);
    await mine(a).getByTestId("message-waiting").waitFor();
    expect(await mine(a).count()).toBe(1);

    // The tab is closed before the network returns; the next page, online, sends it once.
    await a.close();
    await context.setOffline(false);
    const again = await context.newPage();
    await again.goto(chatUrl);
    await mine(again)
      .getByLabel(/^(Sent|Delivered|Read)$/)
      .waitFor();
    // Bob's open page receives it, blurred, once; and it stays once on both after a reload.
    await b.getByRole("button", { name: "Show photo" }).waitFor();
    await again.reload();
    await mine(again)
      .getByLabel(/^(Sent|Delivered|Read)$/)
      .waitFor();
    expect(await mine(again).count()).toBe(1);
    await b.reload();
    await b.getByRole("button", { name: "Show photo" }).waitFor();
    expect(await b.getByRole("button", { name: "Show photo" }).count()).toBe(1);
  });

  test("a voice note recorded in one browser plays in the other, at a chosen speed", async () => {
    const { a, b } = await matchedAndOpen();
    await a.getByRole("button", { name: "Record a voice note" }).click();
    const recording = a.getByRole("group", { name: "Recording a voice note" });
    await recording.waitFor();
    await expect
      .poll(() => a.getByTestId("recording-time").textContent(), { timeout: 10_000 })
      .toMatch(/^0:0[2-9]/);
    await recording.getByRole("button", { name: "Send voice note" }).click();

    const note = b.getByTestId("voice-note");
    await note.waitFor();
    // Its length, as the server measured it from the recording.
    await expect.poll(() => note.getByTestId("voice-time").textContent()).toMatch(/^0:0[2-9]$/);
    await note.getByRole("button", { name: "Playback speed 1×" }).click();
    await note.getByRole("button", { name: "Playback speed 1.5×" }).waitFor();
    await note.getByRole("button", { name: "Play voice note" }).click();
    await note.getByRole("button", { name: "Pause voice note" }).waitFor();
    await expect
      .poll(() =>
        note.locator("audio").evaluate((el: HTMLAudioElement) => ({
          playing: el.currentTime > 0,
          rate: el.playbackRate,
        })),
      )
      .toEqual({ playing: true, rate: 1.5 });
    // The waveform was drawn from the decoded sound.
    await expect.poll(() => note.locator('.voice-bar[style*="height: 100%"]').count()).toBe(1);
    // The sender's own copy plays too.
    await a.getByTestId("voice-note").getByRole("button", { name: "Play voice note" }).waitFor();
  });

  test("a video call: rings on another page, accepted, connected with frames flowing both ways, then a line", async () => {
    const { alice, bob, a, b } = await matchedAndOpen();
    // Bob is elsewhere in the app when Alice calls: the ring reaches that page.
    await visit(b, "/dashboard");
    // His page's own channel is live once it shows a new message's unread count.
    const composer = a.getByLabel("Message", { exact: true });
    await composer.fill("Calling you now");
    await composer.press("Enter");
    await expect.poll(() => b.getByTestId("chat-unread").textContent()).toBe("1");
    await a.getByRole("button", { name: "Video call" }).click();
    await a.getByText(`Calling ${bob.username}…`).waitFor();
    const banner = b.getByRole("alertdialog", { name: "Incoming video call" });
    await banner.getByText(`${alice.username} is calling you (video call)`).waitFor();
    await banner.getByRole("link", { name: "Answer" }).click();
    // The conversation opens and rings there, where it is accepted.
    const ringing = b.getByRole("alertdialog", { name: `Video call with ${alice.username}` });
    await ringing.getByText(`${alice.username} is calling you (video call)`).waitFor();
    await ringing.getByRole("button", { name: "Accept" }).click();

    for (const page of [a, b]) {
      await page.locator('.call-panel[data-call-state="connected"]').waitFor({ timeout: 30_000 });
      const remote = page.getByTestId("call-remote");
      // Frames flow: the other side's fake camera has a size and its time moves on.
      await expect
        .poll(() => remote.evaluate((v: HTMLVideoElement) => v.videoWidth), { timeout: 20_000 })
        .toBeGreaterThan(0);
      const before = await remote.evaluate((v: HTMLVideoElement) => v.currentTime);
      await expect
        .poll(() => remote.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10_000 })
        .toBeGreaterThan(before);
      await page.getByTestId("call-clock").waitFor();
    }

    await a.getByRole("button", { name: "Hang up" }).click();
    await b.getByText("Call ended").waitFor();
    // The call is a line in the conversation on both sides (who called, how long).
    for (const page of [a, b]) {
      await page
        .getByTestId("message")
        .filter({ hasText: /📞 Video call · \d:\d\d/ })
        .waitFor();
    }
  });
});
