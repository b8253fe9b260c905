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
