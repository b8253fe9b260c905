import { PHOTO_LIMITS } from "~/schemas/photos";
import { sniffImageType, SNIFF_BYTES, type SniffedType } from "./image-type";

/**
 * Browser-side photo preparation before upload: a camera picture is scaled so that its long side
 * is at most MAX_EDGE and re-encoded as JPEG, which brings a normal phone photo (12-50 MP,
 * 3-12 MB) to well under the 4MB limit. JPEGs are always re-encoded: that applies the camera's
 * rotation and drops the EXIF block, whose GPS position a member should not share by accident.
 * PNG and WebP files are left alone unless they are too large.
 */
export const MAX_EDGE = 2048;
const QUALITY_STEPS = [
  { edge: MAX_EDGE, quality: 0.85 },
  { edge: 1600, quality: 0.78 },
  { edge: 1280, quality: 0.7 },
];

export interface PreparedPhoto {
  file: File;
  type: SniffedType;
}

export async function sniffFile(file: Blob): Promise<SniffedType> {
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  return sniffImageType(head);
}

async function encode(
  bitmap: ImageBitmap,
  edge: number,
  quality: number,
  flatten: boolean,
): Promise<Blob | null> {
  const scale = Math.min(1, edge / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  if (flatten) {
    // JPEG has no transparency: a transparent PNG becomes a photo on white, not on black.
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, width, height);
  }
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, width, height);
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
}

const jpegName = (name: string) => `${name.replace(/\.[^./\\]+$/, "") || "photo"}.jpg`;

/**
 * Scales and re-encodes one chosen file when needed. A file that is not a supported image, or
 * that the browser cannot decode, is returned as it is: the rules (here and on the server) refuse it.
 */
export async function preparePhoto(file: File): Promise<PreparedPhoto> {
  const type = await sniffFile(file);
  if (type !== "jpeg" && type !== "png" && type !== "webp") return { file, type };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return { file, type };
  }
  try {
    const large = Math.max(bitmap.width, bitmap.height) > MAX_EDGE;
    const heavy = file.size >= PHOTO_LIMITS.maxBytes;
    if (type !== "jpeg" && !large && !heavy) return { file, type };
    for (const step of QUALITY_STEPS) {
      const blob = await encode(bitmap, step.edge, step.quality, type !== "jpeg");
      if (!blob) break;
      if (blob.size < PHOTO_LIMITS.maxBytes) {
        return {
          file: new File([blob], jpegName(file.name), { type: "image/jpeg" }),
          type: "jpeg",
        };
      }
    }
    return { file, type };
  } finally {
    bitmap.close();
  }
}
