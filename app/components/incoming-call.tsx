import { useEffect, useState } from "react";
import { AppLink } from "~/components/link";
import { api } from "~/lib/http";
import { closeRingNotification } from "~/lib/service-worker";
import { displayName } from "~/lib/members";
import type { CallRingFrame } from "~/realtime/member";
import { subscribeMemberFrames } from "~/realtime/client";
import type { ConversationView } from "~/schemas/chat";

/** Whether this page is the conversation itself (its thread shows the call there). */
const showsConversation = (conversationId: string) => {
  const here = new URL(window.location.href);
  return here.pathname === "/chat" && here.searchParams.get("conversation") === conversationId;
};

/**
 * A call ringing for the member, on whatever page they are (docs/api.md "Calls"): who calls, and
 * a way to the conversation, where the call is answered. It goes when the call stops ringing
 * (answered, declined or ended, on any page) or when "Not now" is chosen.
 */
export function IncomingCall() {
  const [ring, setRing] = useState<(CallRingFrame & { name: string | null }) | null>(null);

  useEffect(
    () =>
      subscribeMemberFrames((frame) => {
        if (frame.type !== "call") return;
        if (!frame.ringing) {
          setRing((r) => (r?.call_id === frame.call_id ? null : r));
          closeRingNotification(frame.conversation_id);
          return;
        }
        if (showsConversation(frame.conversation_id)) return;
        setRing({ ...frame, name: null });
        // The caller's name, from the member's conversations (their card is there).
        api<{ conversations: ConversationView[] }>("/chat/conversations")
          .then(({ conversations }) => {
            const entry = conversations.find((c) => c.id === frame.conversation_id);
            if (!entry) return;
            setRing((r) =>
              r?.call_id === frame.call_id ? { ...r, name: displayName(entry.user) } : r,
            );
          })
          .catch(() => {});
      }),
    [],
  );

  if (!ring) return null;
  const kind = ring.video ? "video call" : "voice call";
  return (
    <div className="incoming-call" role="alertdialog" aria-label={`Incoming ${kind}`}>
      <span aria-hidden="true">{ring.video ? "🎥" : "📞"}</span>
      <span>
        {ring.name ? (
          <>
            <strong>{ring.name}</strong> is calling you ({kind})
          </>
        ) : (
          `Incoming ${kind}`
        )}
      </span>
      <AppLink
        to={`/chat?conversation=${encodeURIComponent(ring.conversation_id)}`}
        className="btn btn-primary btn-sm"
        onClick={() => setRing(null)}
      >
        Answer
      </AppLink>
      <button type="button" className="btn btn-ghost btn-sm" onClick={() => setRing(null)}>
        Not now
      </button>
    </div>
  );
}
