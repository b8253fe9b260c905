import { describe, expect, it } from "vitest";
import { preloadsAtLowPriority } from "~/server/preload-priority.server";

const HTML =
  '<head><link rel="stylesheet" href="/a.css"/></head><body><p>Grüße, Zoë 💌</p>' +
  '<link rel="modulepreload" href="/assets/entry.js"/><link rel="modulepreload" href="/assets/root.js"/>' +
  "<script>import('/assets/entry.js')</script></body>";
const EXPECTED = HTML.replaceAll(
  '<link rel="modulepreload"',
  '<link rel="modulepreload" fetchpriority="low"',
);

async function through(chunks: Uint8Array[]): Promise<string> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Response(source.pipeThrough(preloadsAtLowPriority())).text();
}

describe("modules preloaded at low priority (entry.server.tsx)", () => {
  const bytes = new TextEncoder().encode(HTML);

  it("marks every module preload, and nothing else, in one chunk", async () => {
    expect(await through([bytes])).toBe(EXPECTED);
  });

  it("whatever the chunks cut: a tag or a character in two, at every place", async () => {
    for (let at = 0; at <= bytes.length; at += 1) {
      expect(await through([bytes.slice(0, at), bytes.slice(at)])).toBe(EXPECTED);
    }
    expect(await through([...bytes].map((b) => new Uint8Array([b])))).toBe(EXPECTED);
  });

  it("leaves a page without preloads as it is", async () => {
    const page = '<html><body><p>Welcome</p><a href="/login">Sign in</a></body></html>';
    expect(await through([new TextEncoder().encode(page)])).toBe(page);
  });
});
