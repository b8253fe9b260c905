/**
 * bench/chat/attachments: how long a photo takes from the sender's upload to the recipient, as
 * issue "Chat that members expect today" asks (a 1 MB photo, p50/p99), for Heartline's Worker in
 * workerd with local D1, R2 and Durable Objects on tmpfs (bench/lib/worker.ts).
 *
 *   npm run build && npx tsx bench/chat/attachments.ts [--photos N] [--pairs N] [--bytes N]
 *
 *   --photos N   photos measured (default 100), after 10 unmeasured (warm-up)
 *   --pairs N    conversations they go round (default 10), each between two members who match
 *   --bytes N    each photo's size (default 1,048,576: a JPEG whose scan data is random bytes,
 *                which the server keeps as it is once its metadata is gone)
 *
 * One photo at a time: the sender POSTs it (multipart) to …/attachments; the recipient's open
 * socket on the conversation gets the `message` frame; the recipient then GETs the photo. Printed:
 * the upload's answer, the frame's arrival (upload to delivery), and the photo downloaded by the
 * recipient (upload to seen), p50/p95/p99/max in ms.
 */
import { randomBytes } from "node:crypto";
import { FormData, request, WebSocket } from "undici";
import { commandLine } from "../lib/args";
import { BenchState, percentile, startWorker } from "../lib/worker";
import { seedMembers, type Member } from "./members";

const { number } = commandLine(process.argv.slice(2));
const PHOTOS = number("photos", 100);
const PAIRS = number("pairs", 10);
const BYTES = number("bytes", 1024 * 1024);
const WARMUP = 10;
const log = (message: string) => console.log(`[bench] ${message}`);

/** A baseline JPEG of `size` bytes: SOI, a frame header, a scan of random entropy data, EOI. */
function jpeg(size: number): Buffer {
  const head = Buffer.from([
    0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0x03, 0x00, 0x04, 0x00, 1, 1, 0x11, 0, 0xff, 0xda, 0, 8, 1, 1,
    0, 0, 63, 0,
  ]);
  const tail = Buffer.from([0xff, 0xd9]);
  const scan = randomBytes(size - head.length - tail.length);
  // No marker inside the scan: an 0xFF there would be read as one.
  for (let i = 0; i < scan.length; i++) if (scan[i] === 0xff) scan[i] = 0xfe;
  return Buffer.concat([head, scan, tail]);
}

const headers = (m: Member, base: string) => ({
  Cookie: m.cookie,
  "X-CSRF-Token": m.csrf,
  Origin: base,
  Accept: "application/json",
});

async function postJson(base: string, m: Member, pathname: string, body: unknown) {
  const res = await request(`${base}${pathname}`, {
    method: "POST",
    headers: { ...headers(m, base), "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.body.json()) as Record<string, unknown>;
  if (res.statusCode >= 300)
    throw new Error(`${pathname}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

function socket(base: string, m: Member, conversationId: string) {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws/chat/${conversationId}`, {
    headers: { Cookie: m.cookie, Origin: base },
  } as never);
  const waiting = new Map<string, (at: number, url: string) => void>();
  ws.addEventListener("message", (event) => {
    const frame = JSON.parse(String(event.data)) as {
      type: string;
      message?: { client_id: string | null; attachment: { url: string } | null };
    };
    const clientId = frame.message?.client_id;
    if (frame.type === "message" && clientId && frame.message?.attachment) {
      waiting.get(clientId)?.(performance.now(), frame.message.attachment.url);
      waiting.delete(clientId);
    }
  });
  const open = new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error("socket failed")));
  });
  return {
    open,
    ws,
    arrival(clientId: string) {
      return new Promise<{ at: number; url: string }>((resolve) =>
        waiting.set(clientId, (at, url) => resolve({ at, url })),
      );
    },
  };
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (p: number) => percentile(sorted, p).toFixed(1);
  return `p50 ${f(50)}  p95 ${f(95)}  p99 ${f(99)}  max ${sorted.at(-1)!.toFixed(1)} ms`;
};

async function main() {
  const state = new BenchState("chat-attachments");
  await state.reset();
  const members = await seedMembers(PAIRS * 2, [state]);
  // Every pair matches (photos are sent after a match).
  const now = new Date().toISOString();
  const likes: string[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const [a, b] = [members[2 * i]!, members[2 * i + 1]!];
    likes.push(
      `INSERT INTO likes (liker_id, liked_id, created_at) VALUES ('${a.id}', '${b.id}', '${now}');`,
      `INSERT INTO likes (liker_id, liked_id, created_at) VALUES ('${b.id}', '${a.id}', '${now}');`,
    );
  }
  await state.executeSql("likes.sql", likes);
  await state.prepareWorker((config) => {
    const limits = config.vars?.RATE_LIMITS as Record<string, string> | undefined;
    if (limits) limits.chat_send_account = "100000000/60";
  });
  const worker = await startWorker(state, { vars: { APP_ENV: "development" } });
  try {
    const base = worker.url;
    log(`Worker on ${base} (${worker.route}); state in ${state.dir}`);
    const pairs: { sender: Member; recipient: Member; id: string }[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const [a, b] = [members[2 * i]!, members[2 * i + 1]!];
      const started = await postJson(base, a, "/chat/conversations", {
        user_id: b.id,
        message: "hi",
      });
      const id = (started.conversation as { id: string }).id;
      await postJson(base, b, `/chat/conversations/${id}/messages`, { message: "hello" });
      pairs.push({ sender: a, recipient: b, id });
    }
    const sockets = pairs.map((p) => socket(base, p.recipient, p.id));
    await Promise.all(sockets.map((s) => s.open));
    const photo = jpeg(BYTES);
    log(`${PHOTOS} photos of ${photo.length} bytes (+${WARMUP} warm-up) over ${PAIRS} pairs`);

    const answered: number[] = [];
    const delivered: number[] = [];
    const seen: number[] = [];
    for (let n = 0; n < PHOTOS + WARMUP; n++) {
      const pair = pairs[n % PAIRS]!;
      const clientId = `bench-photo-${n}`;
      const arrival = sockets[n % PAIRS]!.arrival(clientId);
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "photo.jpg");
      form.append("client_id", clientId);
      const start = performance.now();
      const res = await request(`${base}/chat/conversations/${pair.id}/attachments`, {
        method: "POST",
        headers: headers(pair.sender, base),
        body: form,
      });
      await res.body.dump();
      const answeredAt = performance.now();
      if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode}`);
      const { at, url } = await arrival;
      const got = await request(`${base}${url}`, { headers: headers(pair.recipient, base) });
      const bytes = Buffer.from(await got.body.arrayBuffer());
      const seenAt = performance.now();
      if (got.statusCode !== 200 || bytes.length < BYTES * 0.99) {
        throw new Error(`download: ${got.statusCode}, ${bytes.length} bytes`);
      }
      if (n < WARMUP) continue;
      answered.push(answeredAt - start);
      delivered.push(at - start);
      seen.push(seenAt - start);
    }
    log(`upload answered (201):          ${summary(answered)}`);
    log(`upload to delivery (frame):     ${summary(delivered)}`);
    log(`upload to seen (photo fetched): ${summary(seen)}`);
    for (const s of sockets) s.ws.close();
  } finally {
    await worker.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
