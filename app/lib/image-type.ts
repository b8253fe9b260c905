/**
 * What a file really is, from its first bytes (never from its name or declared type).
 * `jpeg`, `png` and `webp` are the formats Heartline accepts; `other-image` is a picture in a format
 * it does not (GIF, BMP, TIFF, HEIC/AVIF, ICO, SVG); `not-image` is anything else.
 */
export type SniffedType = "jpeg" | "png" | "webp" | "other-image" | "not-image";

export const CONTENT_TYPES = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
} as const;

/** How many leading bytes sniffImageType needs. */
export const SNIFF_BYTES = 512;

const startsWith = (bytes: Uint8Array, sig: number[], offset = 0) =>
  bytes.length >= offset + sig.length && sig.every((b, i) => bytes[offset + i] === b);

const ascii = (bytes: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)));

const HEIF_BRANDS = new Set([
  "heic",
  "heix",
  "hevc",
  "hevx",
  "heim",
  "heis",
  "mif1",
  "msf1",
  "avif",
  "avis",
]);

export function sniffImageType(bytes: Uint8Array): SniffedType {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "jpeg";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "webp";
  const head6 = ascii(bytes, 0, 6);
  if (head6 === "GIF87a" || head6 === "GIF89a") return "other-image";
  if (startsWith(bytes, [0x42, 0x4d]) && bytes.length > 14) return "other-image";
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]))
    return "other-image";
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return "other-image";
  if (ascii(bytes, 4, 8) === "ftyp" && HEIF_BRANDS.has(ascii(bytes, 8, 12))) return "other-image";
  const text = ascii(bytes, 0, SNIFF_BYTES)
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase();
  if (text.startsWith("<svg") || (text.startsWith("<?xml") && text.includes("<svg")))
    return "other-image";
  return "not-image";
}

/** The browser's guess from a declared MIME type and name (checked again from bytes on the server). */
export function typeFromDeclared(mime: string, name: string): SniffedType {
  const type = mime.toLowerCase();
  if (type === "image/jpeg" || type === "image/jpg" || type === "image/pjpeg") return "jpeg";
  if (type === "image/png") return "png";
  if (type === "image/webp") return "webp";
  if (type.startsWith("image/")) return "other-image";
  if (type === "") {
    const ext = name.toLowerCase().split(".").pop() ?? "";
    if (ext === "jpg" || ext === "jpeg") return "jpeg";
    if (ext === "png") return "png";
    if (ext === "webp") return "webp";
    if (["gif", "bmp", "tif", "tiff", "heic", "heif", "avif", "svg", "ico"].includes(ext))
      return "other-image";
  }
  return "not-image";
}

/** The largest photo accepted, per side and in all (a bigger one decodes to gigabytes). */
export const MAX_IMAGE_SIDE = 8000;
export const MAX_IMAGE_PIXELS = 40_000_000;
export const IMAGE_TOO_LARGE_MESSAGE = `Each photo must be at most ${MAX_IMAGE_SIDE} pixels on each side and ${MAX_IMAGE_PIXELS / 1_000_000} megapixels in all`;

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const u32be = (b: Uint8Array, i: number) =>
  ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const u32le = (b: Uint8Array, i: number) => u24le(b, i) + b[i + 3]! * 0x1000000;

/** Markup that must never be stored, wherever it hides in a file ("<script", "<html", …). */
const MARKUP = ["<script", "<html", "<!doctype", "<iframe", "<svg", "<body", "<?xml"].map((t) =>
  Array.from(t, (c) => c.charCodeAt(0)),
);

function containsMarkup(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x3c) continue;
    for (const tag of MARKUP) {
      let j = 1;
      while (j < tag.length && (bytes[i + j]! | 0x20) === (tag[j]! | 0x20)) j++;
      if (j === tag.length) return true;
    }
  }
  return false;
}

function pngDimensions(b: Uint8Array) {
  // IHDR first, then chunks that fit, ending with IEND at the very end.
  if (b.length < 45 || u32be(b, 8) !== 13 || ascii(b, 12, 16) !== "IHDR") return null;
  let i = 8;
  for (;;) {
    if (i + 12 > b.length) return null;
    const length = u32be(b, i);
    const type = ascii(b, i + 4, i + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) return null;
    const end = i + 12 + length;
    if (end > b.length) return null;
    if (type === "IEND")
      return end === b.length ? { width: u32be(b, 16), height: u32be(b, 20) } : null;
    i = end;
  }
}

function jpegDimensions(b: Uint8Array) {
  // Segments from SOI: a frame header (SOF) before the scan, and EOI as the last two bytes.
  if (b.length < 4 || b[b.length - 2] !== 0xff || b[b.length - 1] !== 0xd9) return null;
  let i = 2;
  let size: { width: number; height: number } | null = null;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9) return null;
    const length = u16be(b, i + 2);
    if (length < 2 || i + 2 + length > b.length) return null;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) {
      if (length < 8) return null;
      size = { height: u16be(b, i + 5), width: u16be(b, i + 7) };
    }
    if (marker === 0xda) return size;
    i += 2 + length;
  }
  return null;
}

function webpDimensions(b: Uint8Array) {
  // RIFF whose size is the file's, chunks that fit, the first one an image header.
  if (b.length < 30 || u32le(b, 4) + 8 !== b.length) return null;
  let i = 12;
  let size: { width: number; height: number } | null = null;
  while (i < b.length) {
    if (i + 8 > b.length) return null;
    const type = ascii(b, i, i + 4);
    const length = u32le(b, i + 4);
    const data = i + 8;
    if (data + length > b.length) return null;
    if (i === 12) {
      if (type === "VP8X" && length >= 10) {
        size = { width: u24le(b, data + 4) + 1, height: u24le(b, data + 7) + 1 };
      } else if (type === "VP8L" && length >= 5 && b[data] === 0x2f) {
        const bits = u32le(b, data + 1);
        size = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      } else if (type === "VP8 " && length >= 10 && startsWith(b, [0x9d, 0x01, 0x2a], data + 3)) {
        size = {
          width: (b[data + 6]! | (b[data + 7]! << 8)) & 0x3fff,
          height: (b[data + 8]! | (b[data + 9]! << 8)) & 0x3fff,
        };
      } else return null;
    }
    i = data + length + (length % 2);
  }
  return size;
}

/**
 * A JPEG, PNG or WebP file's dimensions, read from its headers, or null when the file is not a
 * well-formed file of that type (the checks that are cheap: chunk and segment structure, the end
 * marker, no markup hidden inside).
 */
export function imageDimensions(
  bytes: Uint8Array,
  type: "jpeg" | "png" | "webp",
): { width: number; height: number } | null {
  const size =
    type === "png"
      ? pngDimensions(bytes)
      : type === "jpeg"
        ? jpegDimensions(bytes)
        : webpDimensions(bytes);
  if (!size || size.width < 1 || size.height < 1 || containsMarkup(bytes)) return null;
  return size;
}

export const isTooLarge = (size: { width: number; height: number }) =>
  size.width > MAX_IMAGE_SIDE ||
  size.height > MAX_IMAGE_SIDE ||
  size.width * size.height > MAX_IMAGE_PIXELS;
