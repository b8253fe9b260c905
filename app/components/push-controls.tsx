import { useEffect, useState } from "react";
import {
  dismissPushOffer,
  offerPush,
  pushState,
  sendTestPush,
  turnOffPush,
  turnOnPush,
  type PushState,
} from "~/lib/push";
import { FormAlert } from "./form";

type Note = { tone: "success" | "error"; text: string } | null;

const failed = (error: unknown) =>
  error instanceof Error && error.message ? error.message : "That did not work. Try again.";

const STATE_TEXT: Record<PushState, string> = {
  unsupported:
    "This browser cannot show Heartline's notifications. On an iPhone or iPad, add Heartline to your home screen (Share, then Add to Home Screen) and open it from there.",
  denied:
    "Notifications are blocked for Heartline in this browser. To get them, allow notifications for this site in the browser's site settings, then reload this page.",
  off: "Get a notification on this device when something happens while you are away: a message, a match, a like.",
  on: "This device gets push notifications when you are away.",
};

/** The settings page's push section: this device's state, turning it on or off, a test. */
export function PushSettings() {
  const [state, setState] = useState<PushState | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<Note>(null);
  useEffect(() => {
    pushState()
      .then(setState)
      .catch(() => setState("unsupported"));
  }, []);

  async function run(action: () => Promise<PushState | void>, done: string) {
    setBusy(true);
    setNote(null);
    try {
      const next = await action();
      if (next) setState(next);
      if (!next || next === "on" || next === "off") setNote({ tone: "success", text: done });
    } catch (error) {
      setNote({ tone: "error", text: failed(error) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="push-settings" aria-labelledby="push-title" data-push-state={state ?? ""}>
      <h3 id="push-title">Push notifications on this device</h3>
      <p className="muted" aria-live="polite">
        {state ? STATE_TEXT[state] : "Checking this browser…"}
      </p>
      <FormAlert message={note?.text ?? null} tone={note?.tone} />
      <div className="push-actions">
        {state === "off" ? (
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy}
            onClick={() => run(turnOnPush, "Push notifications are on for this device.")}
          >
            Turn on push notifications
          </button>
        ) : null}
        {state === "on" ? (
          <>
            <button
              type="button"
              className="btn btn-secondary"
              disabled={busy}
              onClick={() => run(sendTestPush, "A test notification is on its way.")}
            >
              Send me a test notification
            </button>
            <button
              type="button"
              className="btn btn-secondary"
              disabled={busy}
              onClick={() => run(turnOffPush, "Push notifications are off for this device.")}
            >
              Turn off on this device
            </button>
          </>
        ) : null}
      </div>
    </section>
  );
}

/**
 * The offer at a moment that makes sense (a new match): only while the browser has never been
 * asked, and never again once the member says "Not now".
 */
export function PushOffer({ name }: { name: string }) {
  const [shown, setShown] = useState(false);
  const [note, setNote] = useState<Note>(null);
  useEffect(() => {
    pushState()
      .then((state) => setShown(offerPush(state)))
      .catch(() => {});
  }, []);
  if (!shown) return note ? <FormAlert message={note.text} tone="success" /> : null;

  async function turnOn() {
    try {
      const state = await turnOnPush();
      setShown(false);
      if (state === "on") setNote({ tone: "success", text: "Notifications are on." });
      else dismissPushOffer();
    } catch {
      setShown(false);
    }
  }

  return (
    <div className="push-offer">
      <p className="small">Want to know when {name} writes back, even with Heartline closed?</p>
      <div className="push-actions">
        <button type="button" className="btn btn-secondary btn-sm" onClick={turnOn}>
          Turn on notifications
        </button>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => {
            dismissPushOffer();
            setShown(false);
          }}
        >
          Not now
        </button>
      </div>
    </div>
  );
}
