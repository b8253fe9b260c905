import type { SniffedType } from "~/lib/image-type";

/**
 * docs/domain.md "Profile and photos" and "Limits and constants": the photo rules, checked in the
 * browser before upload and on the server.
 */
export const MB = 1024 * 1024;
export const PHOTO_LIMITS = {
  maxCount: 5,
  /** Each photo is under this size. */
  maxBytes: 4 * MB,
  /** All of a member's photos together are under this size. */
  maxTotalBytes: 20 * MB,
} as const;

export const PHOTO_MESSAGES = {
  required: "Please select at least one photo",
  maxCount: "Maximum 5 photos allowed",
  eachSize: "Each photo must be less than 4MB",
  imageOnly: "Only image files are allowed",
  formats: "Only JPEG, PNG, and WebP images are supported",
  totalSize: "Total size of all photos must be less than 20MB",
} as const;

/** The accept attribute of the file input. */
export const PHOTO_ACCEPT = "image/jpeg,image/png,image/webp";

export interface PhotoCandidate {
  size: number;
  type: SniffedType;
}

export interface ExistingPhotos {
  count: number;
  totalBytes: number;
}

export interface PhotoCheck {
  /** Every rule the selection breaks, in the order of docs/domain.md, each message once. */
  messages: string[];
  /** True when a file is not an image or not one of the accepted formats. */
  wrongType: boolean;
}

/**
 * Checks a selection against the rules of docs/domain.md as they apply to the member's photos after
 * the upload: 1 to 5 in all, each under 4MB, JPEG/PNG/WebP only, all together under 20MB.
 */
export function checkPhotos(
  files: PhotoCandidate[],
  existing: ExistingPhotos = { count: 0, totalBytes: 0 },
): PhotoCheck {
  const messages: string[] = [];
  if (files.length === 0) messages.push(PHOTO_MESSAGES.required);
  if (existing.count + files.length > PHOTO_LIMITS.maxCount) messages.push(PHOTO_MESSAGES.maxCount);
  const notImage = files.some((f) => f.type === "not-image");
  const otherImage = files.some((f) => f.type === "other-image");
  if (notImage) messages.push(PHOTO_MESSAGES.imageOnly);
  if (otherImage) messages.push(PHOTO_MESSAGES.formats);
  if (files.some((f) => f.size >= PHOTO_LIMITS.maxBytes)) messages.push(PHOTO_MESSAGES.eachSize);
  const total = files.reduce((sum, f) => sum + f.size, existing.totalBytes);
  if (files.length > 0 && total >= PHOTO_LIMITS.maxTotalBytes)
    messages.push(PHOTO_MESSAGES.totalSize);
  return { messages, wrongType: notImage || otherImage };
}
