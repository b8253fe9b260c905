import { useNavigate } from "@remix-run/react";
import {
  useEffect,
  useId,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { api } from "~/lib/http";
import { BLOCK_REASON_LABELS, BLOCK_REASON_TYPES, type BlockReasonType } from "~/schemas/block";
import {
  REPORT_DETAILS_MAX,
  REPORT_REASON_LABELS,
  REPORT_REASON_TYPES,
  reportSchema,
  type ReportReasonType,
} from "~/schemas/report";
import { fieldErrors } from "~/schemas/validation";
import {
  blockingErrorMessage,
  blockingStateAtom,
  blockUserAtom,
  clearBlockingMessages,
} from "~/state/blocking";
import { loadArchivedAtom, loadConversationsAtom } from "~/state/chat-actions";
import { useAtom, useSetAtom } from "~/state/jotai";
import { FormAlert } from "./form";
import { Icon } from "./icons";
import { AppLink } from "./link";
import { Menu, type MenuItem } from "./menu";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
function trapTab(event: KeyboardEvent<HTMLDialogElement>) {
  if (event.key !== "Tab") return;
  const controls = [...event.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el.getClientRects().length > 0,
  );
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * A modal built on the native <dialog>: Tab cycles inside it, the browser restores focus, Escape
 * closes it. `open` drives it; `onClose` hears every way it closes.
 */
export function Modal({
  open,
  onClose,
  title,
  className,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  className?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const openRef = useRef(open);
  const titleId = useId();
  const returnTo = useRef<HTMLElement | null>(null);
  useEffect(() => {
    openRef.current = open;
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnTo.current =
        document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    }
    if (!open && dialog.open) dialog.close();
    // Focus goes back to the control that opened the dialog.
    if (!open && returnTo.current?.isConnected) {
      returnTo.current.focus();
      returnTo.current = null;
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={className ? `modal ${className}` : "modal"}
      aria-labelledby={titleId}
      // Closing because `open` turned false is not news to the parent.
      onClose={() => {
        if (openRef.current) onClose();
      }}
      onKeyDown={(event) => trapTab(event)}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its content) closes it.
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div className="modal-body">
        <div className="modal-head">
          <h2 id={titleId} className="h3">
            {title}
          </h2>
          <button type="button" className="icon-btn" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        {children}
      </div>
    </dialog>
  );
}

interface Target {
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
 * The ⋯ menu of another member's profile: Report and Block. Once blocked, the profile is gone for
 * both members, so closing the dialog leaves the page.
 */
export function MemberSafetyActions({ member }: { member: Target }) {
  const [dialog, setDialog] = useState<"block" | "report" | null>(null);
  const [blocked, setBlocked] = useState(false);
  const navigate = useNavigate();
  const close = () => {
    setDialog(null);
    if (blocked) navigate("/dashboard", { replace: true });
  };
  return (
    <div className="safety-actions">
      <Menu
        label="More actions"
        icon={<Icon name="more" size={20} />}
        items={[
          { label: `Report ${member.name}`, onSelect: () => setDialog("report") },
          { label: `Block ${member.name}`, onSelect: () => setDialog("block"), tone: "danger" },
        ]}
      />
      <BlockDialog
        member={member}
        open={dialog === "block"}
        onClose={close}
        onBlocked={() => setBlocked(true)}
        after={
          <div className="modal-actions">
            <AppLink to="/settings/blocked" className="btn btn-ghost">
              Blocked members
            </AppLink>
            <button type="button" className="btn btn-primary" onClick={close}>
              Back to dashboard
            </button>
          </div>
        }
      />
      <ReportDialog member={member} open={dialog === "report"} onClose={close} />
    </div>
  );
}

/**
 * The ⋯ menu of an open conversation: `items` (archiving) first, then Report and Block. The block
 * closes the conversation's sockets at once (the composer stops); leaving the dialog goes back to
 * the lists, refreshed without it.
 */
export function ConversationMenu({
  member,
  items,
  onLeave,
}: {
  member: Target;
  items: MenuItem[];
  /** Back to the conversation lists. */
  onLeave: () => void;
}) {
  const [dialog, setDialog] = useState<"block" | "report" | null>(null);
  const [blocked, setBlocked] = useState(false);
  const loadConversations = useSetAtom(loadConversationsAtom);
  const loadArchived = useSetAtom(loadArchivedAtom);
  const close = () => {
    setDialog(null);
    if (!blocked) return;
    onLeave();
    void loadConversations();
    void loadArchived();
  };
  return (
    <>
      <Menu
        label="More actions"
        icon={<Icon name="more" size={20} />}
        items={[
          ...items,
          { label: `Report ${member.name}`, onSelect: () => setDialog("report") },
          { label: `Block ${member.name}`, onSelect: () => setDialog("block"), tone: "danger" },
        ]}
      />
      <BlockDialog
        member={member}
        open={dialog === "block"}
        onClose={close}
        onBlocked={() => setBlocked(true)}
        after={
          <div className="modal-actions">
            <button type="button" className="btn btn-primary" onClick={close}>
              Back to conversations
            </button>
          </div>
        }
      />
      <ReportDialog member={member} open={dialog === "report"} onClose={close} />
    </>
  );
}

/** "Report" beside a message the other member sent: the report carries the message. */
export function ReportMessageButton({
  senderId,
  messageId,
}: {
  senderId: string;
  messageId: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="bubble-action"
        aria-label="Report message"
        title="Report message"
        onClick={() => setOpen(true)}
      >
        <span aria-hidden="true">⚑</span>
      </button>
      <ReportDialog
        member={{ id: senderId, name: "this member" }}
        messageId={messageId}
        open={open}
        onClose={() => setOpen(false)}
      />
    </>
  );
}
