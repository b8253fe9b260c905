/**
 * The widths a photo is also served at (`GET /photos/{id}?w=…`, made from the stored photo on
 * first request and kept): faces in rows and avatars, member cards, a profile's main photo. A
 * page asks for the smallest that covers the photo's box on a phone's screen (about 1.75 device
 * pixels per CSS pixel; a card is half of a 412 px screen), instead of a camera photo of up to
 * 2,048 px.
 */
export const PHOTO_WIDTHS = [160, 400, 720] as const;
export type PhotoWidth = (typeof PHOTO_WIDTHS)[number];

export const isPhotoWidth = (n: number): n is PhotoWidth =>
  (PHOTO_WIDTHS as readonly number[]).includes(n);

/**
 * A photo's addresses at each width, as the server hands them out (`photo_urls`, a photo's
 * `urls`): each signed for that width and good for a while (app/server/photo-urls.server.ts,
 * docs/decisions/043-signed-photo-urls.md). A page cannot make one itself.
 */
export type PhotoUrls = Record<PhotoWidth, string>;

/** A photo's address at one of the widths. */
export const photoAt = (urls: PhotoUrls, width: PhotoWidth) => urls[width];
