import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import { CsrfInput } from "~/components/form";
import type { EvidenceMessage, KeptPhoto } from "~/schemas/evidence";
import { REJECT_REASON_IDS, REJECT_REASON_LABELS } from "~/schemas/verification";

/** One moderator action on the moderation page: a small form posting its intent and id. */
export function ModerationAction({
  intent,
  id,
  label,
  name,
  danger = false,
  busy,
}: {
  intent: "dismiss" | "suspend" | "clear" | "grant" | "deny" | "approve";
  id: string;
  /** The button's text. */
  label: string;
  /** Its accessible name when the text alone would not say whom it acts on. */
  name?: string;
  danger?: boolean;
  busy: boolean;
}) {
  return (
    <Form method="post">
      <CsrfInput />
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      <button
        type="submit"
        className={danger ? "btn btn-danger btn-sm" : "btn btn-secondary btn-sm"}
        disabled={busy}
        aria-label={name}
        aria-describedby={intent === "suspend" ? "suspend-effects" : undefined}
      >
        {label}
      </button>
    </Form>
  );
}

/** A conversation kept for moderators, a line a message: who, when, and what. */
export function KeptConversation({
  messages,
  reportedName,
}: {
  messages: EvidenceMessage[];
  /** How the reported member is named ("@sam", "Reported member"). */
  reportedName: string;
}) {
  return (
    <ol className="kept-conversation" aria-label="Messages">
      {messages.map((m, i) => (
        <li key={i}>
          <span className="muted small">
            {`${m.from === "reported" ? reportedName : "Reporter"}, ${m.sent_at.slice(0, 16).replace("T", " ")}${m.deleted_at ? " (deleted)" : ""}: `}
          </span>
          {m.gift ? `Gift: ${m.gift}` : m.attachment ? `(${m.attachment})` : m.text}
        </li>
      ))}
    </ol>
  );
}

/**
 * The reported member's photos kept with a report, as they stood at it: each links to the copy at
 * its full size (moderators only, like this page).
 */
export function KeptPhotos({
  photos,
  name,
}: {
  photos: KeptPhoto[];
  /** How the reported member is named ("@sam", "the reported member"). */
  name: string;
}) {
  return (
    <ul className="kept-photos" aria-label={`Photos of ${name} at the report`}>
      {photos.map((p, i) => (
        <li key={p.id}>
          <a href={p.url} target="_blank" rel="noreferrer">
            <img
              src={p.url}
              alt={`Photo ${i + 1} of ${name} at the report`}
              width={120}
              loading="lazy"
            />
          </a>
        </li>
      ))}
    </ul>
  );
}

/** Turning a verification selfie down, with the reason the member is told. */
export function RejectVerification({
  id,
  username,
  busy,
}: {
  id: string;
  username: string;
  busy: boolean;
}) {
  return (
    <Form method="post" className="inline-form">
      <CsrfInput />
      <input type="hidden" name="intent" value="reject" />
      <input type="hidden" name="id" value={id} />
      <label className="sr-only" htmlFor={`reject-${id}`}>
        {`Why the selfie of @${username} is turned down`}
      </label>
      <select id={`reject-${id}`} name="reason" defaultValue="face_unclear">
        {REJECT_REASON_IDS.map((r) => (
          <option key={r} value={r}>
            {REJECT_REASON_LABELS[r]}
          </option>
        ))}
      </select>
      <button
        type="submit"
        className="btn btn-danger btn-sm"
        disabled={busy}
        aria-label={`Reject the selfie of @${username}`}
      >
        Reject
      </button>
    </Form>
  );
}

/**
 * The head of one item in a moderation list: the member's handle, what follows it (an address, a
 * note), the item's badges, and on the right when it happened.
 */
export function ItemHead({
  username,
  detail,
  badges,
  aside,
}: {
  username: string;
  detail?: ReactNode;
  badges?: ReactNode;
  aside: ReactNode;
}) {
  return (
    <div className="report-head">
      <div>
        <strong>@{username}</strong>
        {detail ? <> {detail}</> : null}
        {badges ? <div className="report-badges">{badges}</div> : null}
      </div>
      <span className="muted small">{aside}</span>
    </div>
  );
}
