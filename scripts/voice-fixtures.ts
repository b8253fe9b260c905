/**
 * Records the voice-note test fixture: about 3 s of Chromium's fake microphone through
 * MediaRecorder ("audio/webm;codecs=opus", as the chat records it), written to
 * tests/fixtures/voice/chrome-webm.ts as base64 along with the length Chromium itself decodes.
 *
 *   npx tsx scripts/voice-fixtures.ts
 */
import { writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./lib/chromium";

const RECORD_MS = 3000;
const OUT = new URL("../tests/fixtures/voice/chrome-webm.ts", import.meta.url);

const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: [
    ...CHROMIUM_ARGS,
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    "--autoplay-policy=no-user-gesture-required",
  ],
});
try {
  const page = await browser.newPage();
  // localhost is a secure context, which getUserMedia needs; nothing listens there.
  await page.route("http://localhost/", (route) =>
    route.fulfill({ contentType: "text/html", body: "<!doctype html><title>voice</title>" }),
  );
  await page.goto("http://localhost/");
  const recorded = await page.evaluate(async (ms) => {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const recorder = new MediaRecorder(stream, {
      mimeType: "audio/webm;codecs=opus",
      audioBitsPerSecond: 24000,
    });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (event) => chunks.push(event.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(1000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    recorder.stop();
    await stopped;
    stream.getTracks().forEach((track) => track.stop());
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    const decoded = await new AudioContext().decodeAudioData(bytes.slice().buffer);
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return { base64: btoa(binary), size: bytes.length, decodedMs: decoded.duration * 1000 };
  }, RECORD_MS);

  const lines = recorded.base64.match(/.{1,96}/g) ?? [];
  writeFileSync(
    OUT,
    [
      "/**",
      ` * ${(RECORD_MS / 1000).toFixed(0)} s of Chromium's fake microphone recorded by MediaRecorder`,
      ' * ("audio/webm;codecs=opus", 24 kb/s, 1 s timeslices): no Duration, unknown-size Segment and',
      " * Clusters. Made by scripts/voice-fixtures.ts.",
      " */",
      `export const CHROME_WEBM_BASE64 =\n${lines.map((line) => `  "${line}"`).join(" +\n")};`,
      "",
      "/** Its length as Chromium's own decoder measures it, in milliseconds. */",
      `export const CHROME_WEBM_DURATION_MS = ${Math.round(recorded.decodedMs)};`,
      "",
    ].join("\n"),
  );
  console.log(`${recorded.size} bytes, ${Math.round(recorded.decodedMs)} ms decoded`);
} finally {
  await browser.close();
}
