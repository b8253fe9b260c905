/**
 * Draws the app's icons (the web app manifest's, public/manifest.webmanifest) from the same heart
 * as the favicon: `npx tsx scripts/draw-icons.ts` writes public/icons/*.png. The PNGs are kept in
 * the repository, so neither the build nor a fresh clone needs this script; run it again only when
 * the drawing changes.
 *
 * - `icon-192.png`, `icon-512.png`: the rounded tile of the favicon, for launchers that show an icon
 *   as it is drawn.
 * - `maskable-512.png`: the tile fills the whole square and the heart stays inside the central
 *   circle of 80 % (the "safe zone"), for launchers that cut their own shape (circle, squircle).
 * - `badge-96.png`: the heart alone, white on transparent, for Android's status bar, which keeps
 *   only the alpha channel of a notification's badge.
 */
import { writeFile } from "node:fs/promises";
import sharp from "sharp";

const HEART = "M32 50s-16-9.6-16-22a9 9 0 0 1 16-5.6A9 9 0 0 1 48 28c0 12.4-16 22-16 22z";
const GRADIENT =
  '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e11d63"/><stop offset="1" stop-color="#7c3aed"/></linearGradient></defs>';

const svg = (body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${GRADIENT}${body}</svg>`;

/** The favicon's tile: rounded corners, the heart at its natural size. */
const tile = svg(
  `<rect width="64" height="64" rx="16" fill="url(#g)"/><path d="${HEART}" fill="#fff"/>`,
);

/**
 * Full bleed; the heart (x 16–48, y 18.4–50 in the path, centred on 32, 34.2) scaled by 1.25
 * around the tile's centre: its farthest point (a lobe's outer edge, about 18 units from the
 * heart's centre) is then 22.5 away, inside the safe zone's radius of 25.6.
 */
const maskable = svg(
  `<rect width="64" height="64" fill="url(#g)"/><g transform="translate(32 32) scale(1.25) translate(-32 -34.2)"><path d="${HEART}" fill="#fff"/></g>`,
);

/** The heart alone, centred and filling most of the square. */
const badge = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="14 16.2 36 36"><path d="${HEART}" fill="#fff"/></svg>`;

async function draw(source: string, size: number, name: string) {
  const png = await sharp(Buffer.from(source), { density: (72 * size) / 64 })
    .resize(size, size)
    .png({ compressionLevel: 9, palette: false })
    .toBuffer();
  await writeFile(new URL(`../public/icons/${name}`, import.meta.url), png);
  console.log(`public/icons/${name}: ${size}×${size}, ${png.length} bytes`);
}

await draw(tile, 192, "icon-192.png");
await draw(tile, 512, "icon-512.png");
await draw(maskable, 512, "maskable-512.png");
await draw(badge, 96, "badge-96.png");
