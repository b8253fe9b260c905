/**
 * Profiles in Chromium: a member fills the profile with a location from the pickers, uploads two
 * photos (one a camera-sized picture the browser scales down first), makes the second the main
 * photo, and a second member sees all of it on the public profile; the first member then finds
 * that second member among their profile viewers.
 */
import { deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { useBrowser, registerVerifiedMember, visit, visitFromApp } from "./helpers";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG of one colour with a diagonal stripe, so that every picture differs. */
function png(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0;
    for (let x = 0; x < width; x++) {
      const stripe = Math.abs(x - y) < 8;
      raw.set(stripe ? [255, 255, 255] : [r, g, b], y * row + 1 + x * 3);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function ageToday(dateOfBirth: string): number {
  const [y, m, d] = dateOfBirth.split("-").map(Number) as [number, number, number];
  const now = new Date();
  const month = now.getUTCMonth() + 1;
  return now.getUTCFullYear() - y - (month < m || (month === m && now.getUTCDate() < d) ? 1 : 0);
}

/** The photos' addresses in the photo manager, in order (it shows them at a smaller width). */
function managerPhotos(page: Page) {
  return page
    .getByRole("list", { name: "Your photos" })
    .locator("img")
    .evaluateAll((imgs) => imgs.map((img) => new URL((img as HTMLImageElement).src).pathname));
}

/** Picks an option in one of the location comboboxes by typing part of its name. */
async function pick(page: Page, label: string, typed: string, option: string | RegExp) {
  const field = page.getByRole("combobox", { name: label, exact: true });
  await field.click();
  await field.fill(typed);
  await page.getByRole("option", { name: option }).first().click();
}

/** A photo's signed address at a width (ADR 043): `{path}?w=…&m=…&exp=…&sig=…`. */
const signedAt = (path: string, width: number) =>
  new RegExp(`^${path.replace(/[.?]/g, "\\$&")}\\?w=${width}&m=[\\w-]+&exp=\\d+&sig=[\\w-]+$`);

describe("profiles and photos in Chromium", () => {
  const browser = useBrowser();

  test("fill the profile, upload and reorder photos, be seen by another member", async () => {
    const { member: ada, page } = await registerVerifiedMember(browser(), "ada");

    // The profile form, from the account menu's "My profile" and the "Edit profile" button.
    await visit(page, "/dashboard");
    await page.locator(".site-header summary", { hasText: "Account menu" }).click();
    await page.getByRole("link", { name: "My profile" }).click();
    await page.waitForURL((url) => url.pathname === "/my/profile");
    await page.getByRole("link", { name: "Edit profile" }).click();
    await page.waitForURL((url) => url.pathname === "/settings/profile");
    await page.getByRole("heading", { name: "About you" }).waitFor();

    await page.getByLabel("First name", { exact: true }).fill("Ada");
    await page.getByLabel("Gender", { exact: true }).fill("Woman");
    await page
      .getByLabel("Bio", { exact: true })
      .fill("Mathematician, poet of science, fond of long walks.");

    // Messages show beside the fields as the member types.
    const interests = page.getByLabel("Your interests", { exact: true });
    await interests.fill("Chess");
    await interests.press("Enter");
    await interests.fill("Poetry,");
    await page.getByLabel("Preferences", { exact: true }).fill("Long-term relationship");
    await page.getByLabel("Preferences", { exact: true }).press("Enter");
    await page.getByLabel("From", { exact: true }).fill("30");
    await page.getByLabel("To", { exact: true }).fill("30");
    await page.getByLabel("To", { exact: true }).blur();
    await page.getByText("Minimum age must be less than maximum age").waitFor();
    await page.getByLabel("To", { exact: true }).fill("45");
    await expect
      .poll(() => page.getByText("Minimum age must be less than maximum age").count())
      .toBe(0);
    await page.getByLabel("Username", { exact: true }).fill("ab");
    await page.getByText("Username must be at least 3 characters").waitFor();
    await page.getByLabel("Username", { exact: true }).fill(ada.username);

    // Location: the lists load when each picker opens.
    await pick(page, "Country", "Canad", /Canada$/);
    await pick(page, "State or region", "Ontar", "Ontario");
    await pick(page, "City", "Toront", "Toronto");
    await page.getByLabel("Postal code", { exact: true }).fill("M5V 2T6");

    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your profile has been saved.").waitFor();

    // Two photos: a small PNG as it is, and a camera-sized one the browser scales first.
    await page.locator('input[type="file"][name="photos"]').setInputFiles([
      { name: "first.png", mimeType: "image/png", buffer: png(600, 800, [225, 29, 99]) },
      { name: "camera.png", mimeType: "image/png", buffer: png(3000, 2250, [60, 90, 200]) },
    ]);
    await page.getByText("2 photos added.").waitFor({ timeout: 30_000 });
    const uploaded = await managerPhotos(page);
    expect(uploaded).toHaveLength(2);

    const scaled = await page.evaluate(async (url) => {
      const res = await fetch(url!);
      const bitmap = await createImageBitmap(await res.blob());
      return {
        type: res.headers.get("Content-Type"),
        width: bitmap.width,
        height: bitmap.height,
      };
    }, uploaded[1]);
    expect(scaled).toEqual({ type: "image/jpeg", width: 2048, height: 1536 });

    // Reorder: the second becomes the main photo.
    await page.getByRole("button", { name: "Make photo 2 the main photo" }).click();
    await page.getByText("Photo order saved.").waitFor();
    expect(await managerPhotos(page)).toEqual([uploaded[1], uploaded[0]]);
    await page.reload();
    await page.getByRole("heading", { name: "Photos" }).waitFor();
    expect(await managerPhotos(page)).toEqual([uploaded[1], uploaded[0]]);

    // A second member sees the public profile.
    const { member: grace, page: other } = await registerVerifiedMember(browser(), "grace");
    await visitFromApp(other, `/members/${ada.username}`);
    await other.getByRole("heading", { name: `Ada, ${ageToday(ada.dateOfBirth)}` }).waitFor();
    await other.getByText("Toronto, Ontario, Canada").waitFor();
    await other.getByText("Mathematician, poet of science, fond of long walks.").waitFor();
    await other.getByText("Chess", { exact: true }).waitFor();
    await other.getByText("Poetry", { exact: true }).waitFor();
    const main = other.getByRole("img", { name: /^Ada, photo 1 of 2$/ });
    // The profile shows the main photo at the width it needs, not the 2048 px upload, at its
    // signed address (ADR 043).
    expect(await main.getAttribute("src")).toMatch(signedAt(uploaded[1]!, 720));
    await expect
      .poll(() => main.evaluate((img) => (img as HTMLImageElement).naturalWidth))
      .toBe(720);
    await other.getByRole("button", { name: "Next photo" }).click();
    expect(
      await other.getByRole("img", { name: /^Ada, photo 2 of 2$/ }).getAttribute("src"),
    ).toMatch(signedAt(uploaded[0]!, 720));

    // And Ada finds that member among the viewers of her profile.
    await visit(page, "/my/profile");
    await page.getByText("1 viewer", { exact: true }).waitFor();
    const viewers = page.getByRole("region", { name: "Who viewed you" });
    const link = viewers.getByRole("link", { name: new RegExp(grace.username) });
    await link.waitFor();
    await link.click();
    await page.waitForURL((url) => url.pathname === `/members/${grace.username}`);
  });
});
