/**
 * Push notifications on this device (API.md "Away from the app"): the browser's permission, the
 * subscription its push service gives for Heartline's key, and the server's copy of it.
 */
import { api } from "./http";
import { registerWorker } from "./service-worker";

/**
 * - `unsupported`: no service worker or Push API here (on iPhone and iPad: until Heartline is added
 *   to the home screen);
 * - `denied`: the member or the browser blocked notifications for the site;
 * - `off`: allowed or not yet asked, and no subscription on this device;
 * - `on`: this device has a subscription the server knows.
 */
export type PushState = "unsupported" | "denied" | "off" | "on";

export function pushSupported(): boolean {
  return (
    typeof window !== "undefined" &&
    "serviceWorker" in navigator &&
    "PushManager" in window &&
    "Notification" in window
  );
}

export async function pushState(): Promise<PushState> {
  if (!pushSupported()) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = await registration?.pushManager.getSubscription();
  return subscription && Notification.permission === "granted" ? "on" : "off";
}

/** The application server key as the Push API takes it (base64url to bytes). */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Asks the browser (only ever after the member pressed a button), subscribes this device and
 * hands the subscription to the server. Resolves to the state it ends in.
 */
export async function turnOnPush(): Promise<PushState> {
  if (!pushSupported()) return "unsupported";
  const permission = await Notification.requestPermission();
  if (permission === "denied") return "denied";
  if (permission !== "granted") return "off";
  const registration =
    (await navigator.serviceWorker.getRegistration("/")) ?? (await registerWorker());
  await navigator.serviceWorker.ready;
  const { public_key } = await api<{ public_key: string }>("/my/push/key");
  const key = keyBytes(public_key);
  let subscription = await registration.pushManager.getSubscription();
  // A subscription made for another key (the server's keys changed) cannot be used: start again.
  const current = subscription?.options.applicationServerKey;
  if (subscription && current && !sameBytes(new Uint8Array(current), key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key,
  });
  const { endpoint, keys } = subscription.toJSON();
  await api("/my/push/subscriptions", { method: "POST", body: { endpoint, keys } });
  return "on";
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Stops pushes to this device: the server forgets it, then the browser drops it. */
export async function turnOffPush(): Promise<PushState> {
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = await registration?.pushManager.getSubscription();
  if (subscription) {
    await api("/my/push/subscriptions", {
      method: "DELETE",
      body: { endpoint: subscription.endpoint },
    });
    await subscription.unsubscribe();
  }
  return pushState();
}

/**
 * Signing out: this browser stops being subscribed (the server's row goes with the session), so
 * that the next member to sign in here starts from "off" and the pushes of the one who left stop.
 * Never throws and never takes longer than `ms`: signing out must not wait on it.
 */
export async function forgetPushOnThisDevice(ms = 1500): Promise<void> {
  if (!pushSupported()) return;
  const forget = (async () => {
    const registration = await navigator.serviceWorker.getRegistration("/");
    const subscription = await registration?.pushManager.getSubscription();
    await subscription?.unsubscribe();
  })().catch(() => undefined);
  await Promise.race([forget, new Promise((resolve) => setTimeout(resolve, ms))]);
}

export async function sendTestPush(): Promise<void> {
  await api("/my/push/test", { method: "POST" });
}

const PROMPT_DISMISSED_KEY = "push-prompt-dismissed";

/** Whether to offer pushes in the moment (a match, a first message): never again once declined. */
export function offerPush(state: PushState): boolean {
  if (state !== "off" || Notification.permission !== "default") return false;
  try {
    return localStorage.getItem(PROMPT_DISMISSED_KEY) === null;
  } catch {
    return false;
  }
}

export function dismissPushOffer(): void {
  try {
    localStorage.setItem(PROMPT_DISMISSED_KEY, new Date().toISOString());
  } catch {
    // Private mode: the offer comes back next time, which is all that is lost.
  }
}
