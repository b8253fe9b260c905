import { env } from "cloudflare:test";
import type { TestClient } from "../helpers/client";
import { verifiedMember } from "../helpers/members";

/** Bytes that start with a format's signature, padded to `size` (the server only sniffs the head). */
export function imageBytes(kind: "png" | "jpeg" | "webp" | "gif" | "html" | "svg", size = 1024) {
  const heads: Record<typeof kind, number[]> = {
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    jpeg: [0xff, 0xd8, 0xff, 0xe0],
    webp: [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBPVP8 ")],
    gif: ascii("GIF89a"),
    html: ascii("<!doctype html><html><script>alert(1)</script></html>"),
    svg: ascii('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  };
  const head = heads[kind];
  const bytes = new Uint8Array(new ArrayBuffer(Math.max(size, head.length)));
  bytes.set(head);
  for (let i = head.length; i < bytes.length; i++) bytes[i] = i & 0xff;
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
