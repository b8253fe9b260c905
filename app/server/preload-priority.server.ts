/**
 * The page's modules are preloaded at low priority. The document is rendered on the server, so
 * what a phone on a slow network needs first is its stylesheets and its first photos, then the
 * scripts that hydrate it. At the browser's default (high) priority, the ~25 modules of a
 * signed-in page (about 190 KB) shared the first round trips with the stylesheets, and
 * Lighthouse's slow 4G put first paint on the chat page at 2.1 s; at low priority, 0.9 s
 * (docs/benchmarks.md, "Lighthouse"). The scripts still start loading at once, in order.
 *
 * Remix's `<Scripts>` writes each preload as `<link rel="modulepreload" …/>` and takes no
 * priority, so the rendered stream is rewritten on its way out: a text replacement that holds
 * back the end of a chunk which could be the start of a tag cut in two. (Workers' HTMLRewriter
 * does the same, but reports a page the browser stopped reading as an uncaught error.)
 */
const TAG = '<link rel="modulepreload"';
const LOW = '<link rel="modulepreload" fetchpriority="low"';

/** How much of the end of `text` could be the start of TAG (kept for the next chunk). */
function heldBack(text: string): number {
  for (let n = Math.min(TAG.length - 1, text.length); n > 0; n -= 1) {
    if (TAG.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

export function preloadsAtLowPriority(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = "";
  return new TransformStream({
    transform(chunk, controller) {
      const text = carry + decoder.decode(chunk, { stream: true });
      const keep = heldBack(text);
      carry = text.slice(text.length - keep);
      const out = text.slice(0, text.length - keep).replaceAll(TAG, LOW);
      if (out) controller.enqueue(encoder.encode(out));
    },
    flush(controller) {
      const rest = (carry + decoder.decode()).replaceAll(TAG, LOW);
      if (rest) controller.enqueue(encoder.encode(rest));
    },
  });
}
