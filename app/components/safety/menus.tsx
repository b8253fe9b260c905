import { useNavigate } from "@remix-run/react";
import { useState, type ReactNode } from "react";
import { loadArchivedAtom, loadConversationsAtom } from "~/state/chat-actions";
import { useSetAtom } from "~/state/jotai";
import { Icon } from "../icons";
import { AppLink } from "../link";
import { Menu, type MenuItem } from "../menu";

import { BlockDialog, ReportDialog, UnmatchDialog, type Target } from "./dialogs";

/**
 * A ⋯ menu with `items` first, then Report and Block of `member`. `after` is what the block dialog
 * offers once the block is done; `onClose(blocked)` runs when a dialog closes.
 */
function SafetyMenu({
  member,
  items = [],
  after,
  onClose,
}: {
  member: Target;
  items?: MenuItem[];
  after: (close: () => void) => ReactNode;
  onClose: (blocked: boolean) => void;
}) {
  const [dialog, setDialog] = useState<"block" | "report" | null>(null);
  const [blocked, setBlocked] = useState(false);
  const close = () => {
    setDialog(null);
    onClose(blocked);
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
        after={after(close)}
      />
      <ReportDialog member={member} open={dialog === "report"} onClose={close} />
    </>
  );
}

/**
 * The ⋯ menu of another member's profile: Report and Block. Once blocked, the profile is gone for
 * both members, so closing the dialog leaves the page.
 */
export function MemberSafetyActions({ member }: { member: Target }) {
  const navigate = useNavigate();
  return (
    <div className="safety-actions">
      <SafetyMenu
        member={member}
        onClose={(blocked) => {
          if (blocked) navigate("/dashboard", { replace: true });
        }}
        after={(close) => (
          <div className="modal-actions">
            <AppLink to="/settings/blocked" className="btn btn-ghost">
              Blocked members
            </AppLink>
            <button type="button" className="btn btn-primary" onClick={close}>
              Back to dashboard
            </button>
          </div>
        )}
      />
    </div>
  );
}

/**
 * The ⋯ menu of an open conversation: `items` (archiving) first, then Unmatch, Report and Block.
 * An unmatch or a block closes the conversation's sockets at once (the composer stops); leaving
 * goes back to the lists, refreshed without it.
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
  const loadConversations = useSetAtom(loadConversationsAtom);
  const loadArchived = useSetAtom(loadArchivedAtom);
  const [unmatching, setUnmatching] = useState(false);
  const leave = () => {
    onLeave();
    void loadConversations();
    void loadArchived();
  };
  return (
    <>
      <SafetyMenu
        member={member}
        items={[
          ...items,
          { label: `Unmatch ${member.name}`, onSelect: () => setUnmatching(true), tone: "danger" },
        ]}
        onClose={(blocked) => {
          if (blocked) leave();
        }}
        after={(close) => (
          <div className="modal-actions">
            <button type="button" className="btn btn-primary" onClick={close}>
              Back to conversations
            </button>
          </div>
        )}
      />
      <UnmatchDialog
        member={member}
        open={unmatching}
        onClose={() => setUnmatching(false)}
        onUnmatched={() => {
          setUnmatching(false);
          leave();
        }}
      />
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
