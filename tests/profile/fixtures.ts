import { env } from "cloudflare:test";
import type { TestClient } from "../helpers/client";
import { encodePng } from "../../scripts/lib/png";
import { verifiedMember } from "../helpers/members";

/**
 * A well-formed file of a format, `size` bytes long (padding in a chunk or comment the format
 * allows), claiming `width` × `height` pixels; `html` and `svg` are markup, `gif` a GIF header.
 * The server reads structure and dimensions, not pixels.
 */
export function imageBytes(
  kind: "png" | "jpeg" | "webp" | "gif" | "html" | "svg",
  size = 1024,
  { width = 64, height = 48 }: { width?: number; height?: number } = {},
) {
  /** Parts of the file: bytes, or a number for a run of that many padding bytes. */
  const parts: (number[] | number)[] = [];
  const add = (...more: (number[] | number)[]) => void parts.push(...more);
  const u32be = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const u16be = (n: number) => [(n >>> 8) & 255, n & 255];
  const u32le = (n: number) => u32be(n).reverse();
  const u24le = (n: number) => [n & 255, (n >> 8) & 255, (n >> 16) & 255];
  if (kind === "png") {
    const ihdr = [...u32be(width), ...u32be(height), 8, 6, 0, 0, 0];
    const padding = Math.max(0, size - 8 - 25 - 12 - 12);
    add([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    add([...u32be(13), ...ascii("IHDR"), ...ihdr, 0, 0, 0, 0]);
    add([...u32be(padding), ...ascii("paDd")], padding, [0, 0, 0, 0]);
    add([...u32be(0), ...ascii("IEND"), 0xae, 0x42, 0x60, 0x82]);
  } else if (kind === "jpeg") {
    const tail = [
      ...[0xff, 0xc0, ...u16be(11), 8, ...u16be(height), ...u16be(width), 1, 1, 0x11, 0],
      ...[0xff, 0xda, ...u16be(8), 1, 1, 0, 0, 63, 0, 0x12, 0x34, 0xff, 0xd9],
    ];
    add([0xff, 0xd8]);
    let left = size - 2 - tail.length;
    while (left >= 4) {
      const n = Math.min(65533, left - 4);
      add([0xff, 0xfe, ...u16be(n + 2)], n);
      left -= n + 4;
    }
    add(tail);
  } else if (kind === "webp") {
    const head = [
      ...ascii("VP8X"),
      ...u32le(10),
      0,
      0,
      0,
      0,
      ...u24le(width - 1),
      ...u24le(height - 1),
    ];
    let padding = Math.max(0, size - 12 - head.length - 8);
    padding -= padding % 2;
    add(ascii("RIFF"), u32le(4 + head.length + 8 + padding), ascii("WEBP"), head);
    add([...ascii("PAD "), ...u32le(padding)], padding);
  } else {
    const heads = {
      gif: ascii("GIF89a"),
      html: ascii("<!doctype html><html><script>alert(1)</script></html>"),
      svg: ascii('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    };
    add(heads[kind], Math.max(0, size - heads[kind].length));
  }
  const length = parts.reduce<number>((n, p) => n + (typeof p === "number" ? p : p.length), 0);
  const bytes = new Uint8Array(new ArrayBuffer(length));
  let offset = 0;
  for (const part of parts) {
    if (typeof part === "number") {
      for (let i = 0; i < part; i++) bytes[offset + i] = ((offset + i) * 7 + 1) & 0x3b;
      offset += part;
    } else {
      bytes.set(part, offset);
      offset += part.length;
    }
  }
  return bytes;
}

function ascii(text: string) {
  return Array.from(text, (c) => c.charCodeAt(0));
}

export interface UploadFile {
  bytes: Uint8Array<ArrayBuffer>;
  name?: string;
  type?: string;
}

/** POST /my/photos as multipart, each file in a `photos` part. */
export async function upload(client: TestClient, files: UploadFile[]) {
  if (!client.csrfToken) await client.loadCsrfFromPage("/dashboard");
  const form = new FormData();
  files.forEach((f, i) =>
    form.append(
      "photos",
      new File([f.bytes], f.name ?? `photo${i}.png`, { type: f.type ?? "image/png" }),
    ),
  );
  const res = await client.fetch("/my/photos", {
    method: "POST",
    headers: { Accept: "application/json", "X-CSRF-Token": client.csrfToken },
    body: form,
  });
  const body = (await res.json()) as {
    photos?: { id: string; url: string; position: number }[];
    message?: string;
    errors?: Record<string, string[]>;
  };
  return { status: res.status, body };
}

export const validProfile = {
  bio: "I love long walks and short queues.",
  interests: ["Hiking", "Coffee"],
  preferences: ["Long-term relationship"],
  ageRange: { min: 25, max: 40 },
};

/** A verified member with a complete profile and, optionally, photos. */
export async function memberWithProfile(
  profile: Record<string, unknown> = {},
  { photos = 0 }: { photos?: number } = {},
) {
  const member = await verifiedMember();
  const res = await member.client.json("PUT", "/my/profile", { ...validProfile, ...profile });
  if (res.status !== 200) throw new Error(`profile: ${res.status} ${JSON.stringify(res.body)}`);
  if (photos > 0) {
    const up = await upload(
      member.client,
      Array.from({ length: photos }, () => ({ bytes: imageBytes("png") })),
    );
    if (up.status !== 201) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
  }
  return member;
}

/** Today's date minus `years` (and `days`), as YYYY-MM-DD in UTC. */
export function birthday(years: number, days = 0) {
  const now = new Date();
  const d = new Date(
    Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() + days),
  );
  return d.toISOString().slice(0, 10);
}

export async function countRows(sql: string, ...binds: unknown[]) {
  const row = await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** A real picture (a colour gradient), wide enough to be made smaller. */
export function gradientPng(width: number, height: number) {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      rgb[i] = (x * 255) / width;
      rgb[i + 1] = (y * 255) / height;
      rgb[i + 2] = ((x + y) * 97) % 256;
    }
  }
  return encodePng(width, height, rgb);
}
