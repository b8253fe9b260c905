import { z } from "zod";
import { cookieName, readCookie, serializeCookie } from "./cookies.server";
import { hmacSign, hmacVerify, newId } from "./crypto.server";
import type { Env } from "./env.server";

/**
 * A known device (docs/decisions/021 "An owner's known device"): every successful sign-in leaves
 * a signed cookie in the browser naming the member who signed in and a random id for that
 * browser. It is not a session and opens nothing: it only lets that member's later sign-ins from
 * this browser count their failures in a bucket of their own (`login_device`), which strangers'
 * failures never reach. A sign-out keeps it (the browser is still the member's); it lasts a year
 * from the last sign-in, and a browser holds one, for the member who signed in last.
 */
const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600;

export const deviceCookieName = (env: Env) => cookieName(env, "heartline_device");

export interface KnownDevice {
  memberId: string;
  deviceId: string;
}

/** What the cookie's MAC covers: its purpose, so that no other signed value can stand in for it. */
const signedPart = (memberId: string, deviceId: string, issuedAt: number) =>
  `login-device:${memberId}:${deviceId}:${issuedAt}`;

/** `<member id>.<device id>.<issued at, seconds>.<HMAC-SHA256, base64url>` */
const deviceToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}\.[0-9a-z]{20}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/)
  .transform((value) => {
    // The pattern makes four parts, so the defaults never apply.
    const [memberId = "", deviceId = "", issuedAt = "", mac = ""] = value.split(".");
    return { memberId, deviceId, issuedAt: Number(issuedAt), mac };
  });

/** The Set-Cookie line that marks this browser as a device `memberId` signed in from. */
export async function deviceCookie(env: Env, memberId: string, now = Date.now()): Promise<string> {
  const deviceId = newId();
  const issuedAt = Math.floor(now / 1000);
  const mac = await hmacSign(env.APP_KEY, signedPart(memberId, deviceId, issuedAt));
  return serializeCookie(env, deviceCookieName(env), `${memberId}.${deviceId}.${issuedAt}.${mac}`, {
    maxAge: DEVICE_COOKIE_MAX_AGE,
  });
}

/**
 * The device a request's cookie says it is, when the app signed that cookie less than a year ago;
 * null for no cookie, a malformed, tampered or expired one. Whether it belongs to the account
 * being signed in to is for the caller to compare (`login`).
 */
export async function knownDevice(
  env: Env,
  request: Request,
  now = Date.now(),
): Promise<KnownDevice | null> {
  const token = deviceToken.safeParse(readCookie(request, deviceCookieName(env)));
  if (!token.success) return null;
  const { memberId, deviceId, issuedAt, mac } = token.data;
  // The browser drops it after Max-Age; a copy kept elsewhere stops counting at the same time.
  if (now / 1000 - issuedAt >= DEVICE_COOKIE_MAX_AGE) return null;
  if (!(await hmacVerify(env.APP_KEY, signedPart(memberId, deviceId, issuedAt), mac))) return null;
  return { memberId, deviceId };
}
