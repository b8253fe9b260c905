/**
 * Clean photos (docs/api.md "Profile and photos"): a photo as stored and
 * served carries its pixels and a colour profile, nothing else: no EXIF (GPS, camera, time), XMP,
 * IPTC, comments or text chunks, whatever the client did before uploading it. The containers are
 * rewritten without those parts; the compressed image data is copied byte for byte, so nothing is
 * re-encoded and nothing of the picture changes. Pure functions over bytes.
 *
 * - JPEG: APP1 (EXIF, XMP), APP13 (IPTC, Photoshop), APP3–APP12 and APP15 and COM segments go;
 *   APP0 (JFIF), APP2 `ICC_PROFILE` and APP14 (Adobe, needed to decode the colours) stay.
 * - PNG: `eXIf`, `tEXt`, `iTXt`, `zTXt` and `tIME` chunks go; `iCCP`, `sRGB`, `gAMA`, `cHRM` and
 *   every chunk of the image itself stay.
 * - WebP: `EXIF` and `XMP ` chunks go, with their flags in `VP8X`; `ICCP` stays.
 *
 * The EXIF orientation goes with the rest: the app's own upload draws photos upright before
 * sending them, and a camera file sent straight to the API shows as its pixels are stored.
 */

export type CleanableType = "jpeg" | "png" | "webp";

const PNG_DROPPED = new Set(["eXIf", "tEXt", "iTXt", "zTXt", "tIME"]);
const WEBP_DROPPED = new Set(["EXIF", "XMP "]);
/** VP8X flags: EXIF (bit 3) and XMP (bit 2) metadata present. */
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

const fourcc = (b: Uint8Array, at: number) =>
  String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const startsWith = (b: Uint8Array, at: number, text: string) => {
  for (let i = 0; i < text.length; i += 1) {
    if (b[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
};

function cleanJpeg<T extends Uint8Array>(b: T): T | Uint8Array<ArrayBuffer> | null {
  if (b[0] !== 0xff || b[1] !== 0xd8) return null;
  const parts: Uint8Array[] = [b.subarray(0, 2)];
  let dropped = false;
  // A file with nothing to drop comes back as it is (no copy of a large photo).
  const done = () => (dropped ? concat(parts) : b);
  let at = 2;
  while (at < b.length) {
    if (b[at] !== 0xff) return null;
    // Fill bytes before a marker.
    let m = at + 1;
    while (b[m] === 0xff) m += 1;
    const marker = b[m];
    if (marker === undefined) return null;
    const start = at;
    at = m + 1;
    // Markers without a length: TEM, RSTn, SOI, EOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      parts.push(b.subarray(start, at));
      if (marker === 0xd9) return done();
      continue;
    }
    if (at + 2 > b.length) return null;
    const length = (b[at]! << 8) | b[at + 1]!;
    if (length < 2 || at + length > b.length) return null;
    const end = at + length;
    if (marker === 0xda) {
      // Start of scan: the entropy-coded data and everything after it are the image.
      parts.push(b.subarray(start));
      return done();
    }
    const payload = at + 2;
    const keep =
      marker === 0xe0 ||
      (marker === 0xe2 && startsWith(b, payload, "ICC_PROFILE\0")) ||
      marker === 0xee ||
      !((marker >= 0xe1 && marker <= 0xef) || marker === 0xfe);
    if (keep) parts.push(b.subarray(start, end));
    else dropped = true;
    at = end;
  }
  return null;
}

function cleanPng<T extends Uint8Array>(b: T): T | Uint8Array<ArrayBuffer> | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((x, i) => b[i] === x)) return null;
  const parts: Uint8Array[] = [b.subarray(0, 8)];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let dropped = false;
  let at = 8;
  while (at + 12 <= b.length) {
    const length = view.getUint32(at);
    const end = at + 12 + length;
    if (end > b.length) return null;
    const type = fourcc(b, at + 4);
    if (!PNG_DROPPED.has(type)) parts.push(b.subarray(at, end));
    else dropped = true;
    at = end;
    if (type === "IEND") return dropped ? concat(parts) : b;
  }
  return null;
}

function cleanWebp(b: Uint8Array): Uint8Array<ArrayBuffer> | null {
  if (b.length < 12 || fourcc(b, 0) !== "RIFF" || fourcc(b, 8) !== "WEBP") return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const riffEnd = Math.min(b.length, 8 + view.getUint32(4, true));
  const chunks: Uint8Array[] = [];
  let at = 12;
  while (at + 8 <= riffEnd) {
    const type = fourcc(b, at);
    const size = view.getUint32(at + 4, true);
    const end = at + 8 + size + (size % 2);
    if (at + 8 + size > riffEnd) return null;
    if (!WEBP_DROPPED.has(type)) {
      const chunk = b.slice(at, Math.min(end, riffEnd));
      if (type === "VP8X" && size >= 1) chunk[8] = chunk[8]! & ~(VP8X_EXIF | VP8X_XMP);
      chunks.push(chunk);
    }
    at = end;
  }
  const body = concat(chunks);
  const header = new Uint8Array(12);
  header.set(b.subarray(0, 12));
  new DataView(header.buffer).setUint32(4, 4 + body.byteLength, true);
  return concat([header, body]);
}

/**
 * The photo without its metadata, or null when its structure is broken (it is then no image the
 * app keeps). A clean photo comes back with the same bytes.
 */
export function stripImageMetadata<T extends Uint8Array>(
  bytes: T,
  type: CleanableType,
): T | Uint8Array<ArrayBuffer> | null {
  try {
    if (type === "jpeg") return cleanJpeg(bytes);
    if (type === "png") return cleanPng(bytes);
    return cleanWebp(bytes);
  } catch {
    return null;
  }
}

/** The type of a photo from its first bytes, when it is one this module cleans. */
export function cleanableType(bytes: Uint8Array): CleanableType | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "jpeg";
  if (bytes[0] === 0x89 && startsWith(bytes, 1, "PNG")) return "png";
  if (startsWith(bytes, 0, "RIFF") && startsWith(bytes, 8, "WEBP")) return "webp";
  return null;
}
