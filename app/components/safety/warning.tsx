import { useState } from "react";
import { api } from "~/lib/http";
import type { SafetyNote } from "~/schemas/message-safety";
import { REPORT_DETAILS_MAX } from "~/schemas/report-reasons";

/** The report reason a safety note stands for (the moderators' queue sorts by it). */
const REASON_OF_KIND = {
  money: "scam",
  off_platform: "scam",
  link: "spam",
  harassment: "harassment",
} as const;

/**
 * The warning under a message (or a like's comment) the safety rules noted (docs/api.md "Message
 * safety": for its reader only), with a one-tap report that carries the message id, or for a
 * comment its words (`comment`), which the moderators then read with the report.
 */
export function SafetyWarning({
  senderId,
  safety,
  ...what
}: {
  senderId: string;
  safety: SafetyNote;
} & ({ messageId: string } | { comment: string })) {
  const [state, setState] = useState<"idle" | "busy" | "done" | "failed">("idle");
  const report = async () => {
    setState("busy");
    try {
      await api("/reports", {
        method: "POST",
        body: {
          user_id: senderId,
          reason_type: REASON_OF_KIND[safety.kind],
          ...("messageId" in what
            ? { message_id: what.messageId }
            : { details: `Their like's comment: “${what.comment}”`.slice(0, REPORT_DETAILS_MAX) }),
        },
      });
      setState("done");
    } catch {
      setState("failed");
    }
  };
  return (
    <div className="alert alert-warning safety-warning" role="note" data-safety={safety.kind}>
      <p>{safety.note}</p>
      {state === "done" ? (
        <p className="safety-warning-done" role="status">
          Reported. Thank you: our moderators will look at it.
        </p>
      ) : (
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          disabled={state === "busy"}
          onClick={() => void report()}
        >
          {state === "failed"
            ? "Could not report. Try again"
            : "messageId" in what
              ? "Report this message"
              : "Report this comment"}
        </button>
      )}
    </div>
  );
}
