import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatMessageView } from "~/realtime/chat";
import {
  ATTACHMENT_REQUIRED,
  ATTACHMENT_TEXT,
  ATTACHMENT_TYPE,
  ATTACHMENTS_NEED_MATCH,
  CHAT_PHOTO_TOO_LARGE,
  VOICE_TOO_LONG,
} from "~/schemas/chat";
import { CANNOT_MESSAGE } from "~/server/chat-rules.server";
import { verifiedMember } from "../helpers/members";
import { openSocket, type TestSocket } from "../helpers/sockets";
import { imageBytes } from "../profile/fixtures";
import { GPS_PHOTOS_BASE64 } from "../safety/fixtures/gps-photos";
import { CHROME_WEBM_BASE64, CHROME_WEBM_DURATION_MS } from "../fixtures/voice/chrome-webm";
import {
  block,
  conversationPair,
  like,
  matchedPair,
  page,
  roomMessages,
  sendFile,
  sent,
  type Member,
} from "./helpers";

/**
 * docs/api.md "Chat: reactions, delivery, photos, voice, calls": photos in chat. Sent after a
 * match, checked and cleaned like profile photos, idempotent by client id, opened by the two
 * members only, and gone after a block, a deletion or (view-once) the first view.
 */

const sentMessage = (res: Awaited<ReturnType<typeof sendFile>>) => {
  if (res.status !== 201) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.message as ChatMessageView;
};

const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const latin1 = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");

async function stored(conversationId: string) {
  return (await env.PHOTOS.list({ prefix: `chat/${conversationId}/` })).objects;
}

async function socket(member: Member, id: string): Promise<TestSocket> {
  const res = await openSocket(member.client, `/ws/chat/${id}`);
  if (res.status !== 101 || !res.socket) throw new Error(`socket refused: ${res.status}`);
  return res.socket;
}

const open = (member: Member, url: string, headers: Record<string, string> = {}) =>
  member.client.fetch(url, { headers: { Accept: "image/*", ...headers } });

describe("photos in chat", () => {
  it("sends a photo without its metadata that only the two members can open", async () => {
    const { alice, bob, id } = await matchedPair();
    const bobs = await socket(bob, id);
    const photo = fromBase64(GPS_PHOTOS_BASE64.jpeg);
    const message = sentMessage(await sendFile(alice.client, id, photo, { client_id: "p-1" }));

    expect(message).toMatchObject({
      sender_id: alice.id,
      client_id: "p-1",
      message: ATTACHMENT_TEXT.photo,
      attachment: {
        kind: "photo",
        content_type: "image/jpeg",
        view_once: false,
        opened_at: null,
        url: `/chat/attachments/${message.id}`,
      },
    });
    expect(message.attachment!.width).toBeGreaterThan(0);
    expect(message.attachment!.height).toBeGreaterThan(0);
    // The other member gets it live, and in their page.
    const live = await bobs.next((f) => f.type === "message");
    expect((live.message as ChatMessageView).attachment).toEqual(message.attachment);
    const onPage = (await page(bob.client, id)).body.messages.at(-1)!;
    expect(onPage.attachment).toEqual(message.attachment);

    for (const member of [alice, bob]) {
      const res = await open(member, message.attachment!.url!);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/jpeg");
      expect(res.headers.get("Cache-Control")).toBe("private, no-cache");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.byteLength).toBe(message.attachment!.size);
      // The GPS position, camera and time of the original are not there.
      for (const leak of ["Exif", "SecretPhoneMaker", "HomeCam", "2026:11:20"]) {
        expect(latin1(bytes).includes(leak), leak).toBe(false);
      }
      // A browser's copy is revalidated each time (so it stops opening after a block).
      const again = await open(member, message.attachment!.url!, {
        "If-None-Match": res.headers.get("ETag")!,
      });
      expect(again.status).toBe(304);
    }
    // Nobody else, signed in or not.
    const stranger = await verifiedMember();
    expect((await open(stranger, message.attachment!.url!)).status).toBe(404);
    expect((await open(stranger, `/chat/attachments/${id}.nope`)).status).toBe(404);
    // Stored under its conversation.
    expect(await stored(id)).toHaveLength(1);
  });

  it("is sent once for one client id, whatever the retries", async () => {
    const { alice, id } = await matchedPair();
    const bytes = imageBytes("png", 4096);
    const first = sentMessage(await sendFile(alice.client, id, bytes, { client_id: "same" }));
    const answers = await Promise.all(
      [1, 2, 3].map(() => sendFile(alice.client, id, bytes, { client_id: "same" })),
    );
    for (const a of answers) expect((a.body.message as ChatMessageView).id).toBe(first.id);
    expect((await roomMessages(id)).filter((m) => m.attachment)).toHaveLength(1);
    // The copies of the retries were not kept.
    expect(await stored(id)).toHaveLength(1);
  });

  it("refuses what is not a photo or voice note, a photo of 4MB, and no file, storing nothing", async () => {
    const { alice, id } = await matchedPair();
    const before = (await roomMessages(id)).length;
    const cases: [Uint8Array | null, number, string][] = [
      [imageBytes("gif", 2048), 415, ATTACHMENT_TYPE],
      [imageBytes("html", 2048), 415, ATTACHMENT_TYPE],
      [imageBytes("svg", 2048), 415, ATTACHMENT_TYPE],
      [new TextEncoder().encode("just some text"), 415, ATTACHMENT_TYPE],
      [imageBytes("jpeg", 4 * 1024 * 1024), 422, CHAT_PHOTO_TOO_LARGE],
      [null, 422, ATTACHMENT_REQUIRED],
    ];
    for (const [bytes, status, message] of cases) {
      const res = await sendFile(alice.client, id, bytes);
      expect(res.status, message).toBe(status);
      expect(res.body.message).toBe(message);
      expect(res.body.errors).toEqual({ file: [message] });
    }
    // A body far past the limit is cut off unread.
    const huge = await sendFile(alice.client, id, new Uint8Array(6 * 1024 * 1024));
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe(CHAT_PHOTO_TOO_LARGE);
    expect(await roomMessages(id)).toHaveLength(before);
    expect(await stored(id)).toHaveLength(0);
  });

  it("waits for a match, and is refused to anyone outside the conversation", async () => {
    const { alice, bob, id } = await conversationPair();
    await sent(bob.client, id, "hello");
    const bytes = imageBytes("webp", 2048);
    const before = await sendFile(alice.client, id, bytes);
    expect(before.status).toBe(403);
    expect(before.body.message).toBe(ATTACHMENTS_NEED_MATCH);
    const stranger = await verifiedMember();
    expect((await sendFile(stranger.client, id, bytes)).status).toBe(403);
    expect((await sendFile(alice.client, "no-such-conversation", bytes)).status).toBe(404);
    expect(await stored(id)).toHaveLength(0);
    // Once both like each other, it goes.
    await like(alice, bob);
    await like(bob, alice);
    expect((await sendFile(alice.client, id, bytes)).status).toBe(201);
  });

  it("stops opening for both after a block, and cannot be sent across one", async () => {
    const { alice, bob, id } = await matchedPair();
    const message = sentMessage(await sendFile(alice.client, id, imageBytes("png", 2048)));
    await block(bob, alice);
    for (const member of [alice, bob]) {
      expect((await open(member, message.attachment!.url!)).status).toBe(404);
    }
    const across = await sendFile(alice.client, id, imageBytes("png", 2048));
    expect(across.status).toBe(403);
    expect(across.body.message).toBe(CANNOT_MESSAGE);
  });

  it("goes from R2 when its message is deleted", async () => {
    const { alice, bob, id } = await matchedPair();
    const message = sentMessage(await sendFile(alice.client, id, imageBytes("png", 2048)));
    expect(await stored(id)).toHaveLength(1);
    expect((await alice.client.json("DELETE", `/chat/messages/${message.id}`)).status).toBe(204);
    for (const member of [alice, bob]) {
      expect((await open(member, message.attachment!.url!)).status).toBe(404);
    }
    await expect.poll(() => stored(id)).toHaveLength(0);
    const row = (await roomMessages(id)).find((m) => m.id === message.id)!;
    expect(row.attachment).toBeNull();
  });

  it("is erased with the conversation when a member deletes their account", async () => {
    const { alice, bob, id } = await matchedPair();
    sentMessage(await sendFile(alice.client, id, imageBytes("png", 2048)));
    sentMessage(await sendFile(bob.client, id, imageBytes("jpeg", 2048)));
    expect(await stored(id)).toHaveLength(2);
    expect((await bob.client.json("DELETE", "/my/account")).status).toBe(200);
    expect(await stored(id)).toHaveLength(0);
  });

  it("view once: only the recipient opens it, once; then it is gone for both", async () => {
    const { alice, bob, id } = await matchedPair();
    const alices = await socket(alice, id);
    const message = sentMessage(
      await sendFile(alice.client, id, imageBytes("png", 2048), { view_once: "true" }),
    );
    expect(message.attachment).toMatchObject({ view_once: true, opened_at: null });
    const url = message.attachment!.url!;
    // Its sender does not open it on the server (it is on their device).
    expect((await open(alice, url)).status).toBe(404);

    const first = await open(bob, url);
    expect(first.status).toBe(200);
    expect(first.headers.get("Cache-Control")).toBe("private, no-store");
    expect(first.headers.get("ETag")).toBeNull();
    expect((await first.arrayBuffer()).byteLength).toBe(message.attachment!.size);
    const opened = await alices.next((f) => f.type === "attachment_opened");
    expect(opened).toMatchObject({ conversation_id: id, message_id: message.id });

    const second = await open(bob, url);
    expect(second.status).toBe(410);
    expect((await open(alice, url)).status).toBe(404);
    expect(await stored(id)).toHaveLength(0);
    for (const member of [alice, bob]) {
      const shown = (await page(member.client, id)).body.messages.find((m) => m.id === message.id)!;
      expect(shown.attachment).toMatchObject({ url: null, view_once: true });
      expect(shown.attachment!.opened_at).toBe(opened.opened_at);
    }
  });

  it("view once is for photos: a form's on/true/1 turns it on, anything else is refused", async () => {
    const { alice, id } = await matchedPair();
    const on = sentMessage(
      await sendFile(alice.client, id, imageBytes("png"), { view_once: "on" }),
    );
    expect(on.attachment!.view_once).toBe(true);
    const off = sentMessage(
      await sendFile(alice.client, id, imageBytes("png"), { view_once: "false" }),
    );
    expect(off.attachment!.view_once).toBe(false);
    const bad = await sendFile(alice.client, id, imageBytes("png"), { view_once: "maybe" });
    expect(bad.status).toBe(422);
  });
});

/** An Ogg stream of `seconds` of Opus (or, with `codec` "vorbis", a Vorbis header): three pages. */
function ogg(seconds: number, codec: "opus" | "vorbis" = "opus") {
  const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0));
  const le = (n: number, bytes: number) =>
    Array.from({ length: bytes }, (_, i) => Number((BigInt(n) >> BigInt(8 * i)) & 255n));
  const page = (flags: number, granule: number, packet: number[], sequence: number) => [
    ...ascii("OggS"),
    0,
    flags,
    ...le(granule, 8),
    ...le(0x1234, 4),
    ...le(sequence, 4),
    0,
    0,
    0,
    0,
    1,
    packet.length,
    ...packet,
  ];
  const head =
    codec === "opus"
      ? [...ascii("OpusHead"), 1, 1, ...le(312, 2), ...le(48000, 4), 0, 0, 0]
      : [
          1,
          ...ascii("vorbis"),
          0,
          0,
          0,
          0,
          1,
          ...le(48000, 4),
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          1,
        ];
  const tags = [...ascii("OpusTags"), ...le(4, 4), ...ascii("test"), ...le(0, 4)];
  return new Uint8Array([
    ...page(0x02, 0, head, 0),
    ...page(0, 0, tags, 1),
    ...page(0x04, seconds * 48000 + 312, [0xfc, 0xff, 0xfe], 2),
  ]);
}

describe("voice notes in chat", () => {
  it("takes a recording as the browser makes it, measured by the server, for the two members", async () => {
    const { alice, bob, id } = await matchedPair();
    const webm = fromBase64(CHROME_WEBM_BASE64);
    const message = sentMessage(
      await sendFile(
        alice.client,
        id,
        webm,
        { client_id: "v-1", view_once: "true" },
        { name: "voice.webm", type: "audio/webm" },
      ),
    );
    expect(message.message).toBe(ATTACHMENT_TEXT.voice);
    expect(message.attachment).toMatchObject({
      kind: "voice",
      content_type: "audio/webm",
      size: webm.byteLength,
      // View once is for photos.
      view_once: false,
    });
    expect(Math.abs(message.attachment!.duration_ms! - CHROME_WEBM_DURATION_MS)).toBeLessThan(150);
    const res = await open(bob, message.attachment!.url!);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("audio/webm");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(webm);
  });

  it("takes Opus in Ogg up to a minute, and refuses longer notes or another codec", async () => {
    const { alice, id } = await matchedPair();
    const ok = sentMessage(
      await sendFile(alice.client, id, ogg(30), {}, { name: "v.ogg", type: "audio/ogg" }),
    );
    expect(ok.attachment).toMatchObject({
      kind: "voice",
      content_type: "audio/ogg",
      duration_ms: 30000,
    });
    const long = await sendFile(
      alice.client,
      id,
      ogg(61),
      {},
      { name: "v.ogg", type: "audio/ogg" },
    );
    expect(long.status).toBe(422);
    expect(long.body.message).toBe(VOICE_TOO_LONG);
    const vorbis = await sendFile(
      alice.client,
      id,
      ogg(5, "vorbis"),
      {},
      { name: "v.ogg", type: "audio/ogg" },
    );
    expect(vorbis.status).toBe(415);
    expect(vorbis.body.message).toBe(ATTACHMENT_TYPE);
    expect(await stored(id)).toHaveLength(1);
  });
});
