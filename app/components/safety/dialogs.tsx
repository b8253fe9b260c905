import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { api } from "~/lib/http";
import { BLOCK_REASON_LABELS, BLOCK_REASON_TYPES, type BlockReasonType } from "~/schemas/block";
import {
  REPORT_DETAILS_MAX,
  REPORT_REASON_LABELS,
  REPORT_REASON_TYPES,
  type ReportReasonType,
} from "~/schemas/report-reasons";
import { fieldErrors } from "~/schemas/validation";
import {
  blockingErrorMessage,
  blockingStateAtom,
  blockUserAtom,
  clearBlockingMessages,
} from "~/state/blocking";
import { useAtom, useSetAtom } from "~/state/jotai";
import { FormAlert } from "../form";

import { Modal } from "../modal";

export interface Target {
  id: string;
  name: string;
}

/**
 * The fields a block and a report ask for: a reason from a fixed list (required) and an optional
 * note. Their ids are `${id}-reason-type` and `${id}-${note.name}`.
 */
function ReasonFields<T extends string>({
  id,
  reasonLabel,
  types,
  labels,
  reason,
  onReason,
  note,
  noteValue,
  onNote,
}: {
  id: string;
  reasonLabel: string;
  types: readonly T[];
  labels: Record<T, string>;
  reason: T | "";
  onReason: (value: T | "") => void;
  note: { label: string; name: string; max: number; rows: number };
  noteValue: string;
  onNote: (value: string) => void;
}) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-reason-type`}>{reasonLabel}</label>
        <select
          id={`${id}-reason-type`}
          name="reason_type"
          className="input"
          value={reason}
          required
          onChange={(e) => onReason(e.target.value as T | "")}
        >
          <option value="">Choose a reason…</option>
          {types.map((type) => (
            <option key={type} value={type}>
              {labels[type]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-${note.name}`}>{note.label}</label>
        <textarea
          id={`${id}-${note.name}`}
          name={note.name}
          className="input textarea"
          maxLength={note.max}
          rows={note.rows}
          value={noteValue}
          onChange={(e) => onNote(e.target.value)}
        />
      </div>
    </>
  );
}

/** Cancel, and the dialog's submit button (disabled while it works). */
function DialogActions({
  onCancel,
  busy,
  submit,
  tone,
}: {
  onCancel: () => void;
  busy: boolean;
  submit: string;
  tone: "danger" | "primary";
}) {
  return (
    <div className="modal-actions">
      <button type="button" className="btn btn-ghost" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className={`btn btn-${tone}`} disabled={busy}>
        {submit}
      </button>
    </div>
  );
}

/**
 * Blocking a member: a reason (required) and an optional note. After the block the dialog says
 * so and `onBlocked` runs (a page that can no longer show the member moves on).
 */
export function BlockDialog({
  member,
  open,
  onClose,
  onBlocked,
  after,
}: {
  member: Target;
  open: boolean;
  onClose: () => void;
  onBlocked?: () => void;
  /** What to show under the success message (links onward). */
  after?: ReactNode;
}) {
  const [state, setState] = useAtom(blockingStateAtom);
  const block = useSetAtom(blockUserAtom);
  const [done, setDone] = useState(false);
  const [reasonType, setReasonType] = useState<BlockReasonType | "">("");
  const [reason, setReason] = useState("");
  const [localError, setLocalError] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setDone(false);
      setLocalError(null);
      setState((s) => clearBlockingMessages(s));
    }
  }, [open, setState]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!reasonType) {
      setLocalError("Please choose a reason.");
      return;
    }
    setLocalError(null);
    const ok = await block({
      user_id: member.id,
      reason_type: reasonType,
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
    if (ok) {
      setDone(true);
      onBlocked?.();
    }
  };

  return (
    <Modal open={open} onClose={onClose} title={done ? "Member blocked" : `Block ${member.name}?`}>
      {done ? (
        <div className="form">
          <FormAlert message={state.message} tone="success" />
          <p className="muted">
            You and {member.name} will no longer see or message each other. You can unblock them
            from Settings › Blocked members.
          </p>
          {after}
        </div>
      ) : (
        <form className="form" onSubmit={submit} noValidate>
          <p className="muted">
            They will not be told. Neither of you will find, see or message the other, and likes
            between you are removed.
          </p>
          <FormAlert message={localError ?? state.error} />
          <ReasonFields
            id="block"
            reasonLabel="Reason"
            types={BLOCK_REASON_TYPES}
            labels={BLOCK_REASON_LABELS}
            reason={reasonType}
            onReason={setReasonType}
            note={{ label: "Note (optional)", name: "reason", max: 500, rows: 3 }}
            noteValue={reason}
            onNote={setReason}
          />
          <DialogActions
            onCancel={onClose}
            busy={state.isBlocking}
            submit={state.isBlocking ? "Blocking…" : "Block"}
            tone="danger"
          />
        </form>
      )}
    </Modal>
  );
}

/** Reporting a member (or one of their messages) to the moderators. */
export function ReportDialog({
  member,
  messageId,
  open,
  onClose,
}: {
  member: Target;
  messageId?: string;
  open: boolean;
  onClose: () => void;
}) {
  const [reasonType, setReasonType] = useState<ReportReasonType | "">("");
  const [details, setDetails] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setDone(null);
      setError(null);
    }
  }, [open]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = {
      user_id: member.id,
      reason_type: reasonType,
      details: details.trim() || undefined,
      message_id: messageId,
    };
    // The schema (and zod) loads with the first report sent, not with every profile and chat.
    const { reportSchema } = await import("~/schemas/report");
    const parsed = reportSchema.safeParse(input);
    if (!parsed.success) {
      setError(Object.values(fieldErrors(parsed.error)).flat().join(", "));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await api<{ message: string }>("/reports", { method: "POST", body: input });
      setDone(res.message);
      setReasonType("");
      setDetails("");
    } catch (e) {
      setError(blockingErrorMessage(e, "Failed to report member"));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      onClose={onClose}
      title={messageId ? "Report this message" : `Report ${member.name}`}
    >
      {done ? (
        <div className="form">
          <FormAlert message={done} tone="success" />
          <div className="modal-actions">
            <button type="button" className="btn btn-primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form className="form" onSubmit={submit} noValidate>
          <p className="muted">
            Reports are private. Our moderators review them and act on accounts that break the
            rules.
          </p>
          <FormAlert message={error} />
          <ReasonFields
            id="report"
            reasonLabel="What is wrong?"
            types={REPORT_REASON_TYPES}
            labels={REPORT_REASON_LABELS}
            reason={reasonType}
            onReason={setReasonType}
            note={{
              label: "Details (optional)",
              name: "details",
              max: REPORT_DETAILS_MAX,
              rows: 4,
            }}
            noteValue={details}
            onNote={setDetails}
          />
          <DialogActions
            onCancel={onClose}
            busy={busy}
            submit={busy ? "Sending…" : "Send report"}
            tone="primary"
          />
        </form>
      )}
    </Modal>
  );
}

/**
 * Unmatching a member (DELETE /my/matches/{id}): asked once, then the match and the conversation
 * end for both; neither can write until both like each other again.
 */
export function UnmatchDialog({
  member,
  open,
  onClose,
  onUnmatched,
}: {
  member: Target;
  open: boolean;
  onClose: () => void;
  onUnmatched: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) setError(null);
  }, [open]);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await api(`/my/matches/${encodeURIComponent(member.id)}`, { method: "DELETE" });
      onUnmatched();
    } catch (e) {
      setError(blockingErrorMessage(e, "Failed to unmatch"));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open={open} onClose={onClose} title={`Unmatch ${member.name}?`}>
      <div className="form">
        <p className="muted">
          Your match and this conversation end for both of you, and neither of you can write to the
          other unless you both like each other again. {member.name} is not told why.
        </p>
        <FormAlert message={error} />
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => void confirm()}
            disabled={busy}
          >
            {busy ? "Unmatching…" : "Unmatch"}
          </button>
        </div>
      </div>
    </Modal>
  );
}
