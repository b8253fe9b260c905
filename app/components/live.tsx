import { useEffect } from "react";
import { api } from "~/lib/http";
import { subscribeMemberChannel } from "~/realtime/client";
import { chatUnreadTotalAtom } from "~/state/chat-actions";
import { useSetAtom } from "~/state/jotai";
import { IncomingCall } from "./incoming-call";
import { RealtimeProvider } from "./realtime";

/**
 * Keeps the unread message total current: it loads once per page and then follows the member's
 * own channel (every new message, read or deletion carries the total). Mounted once by the shell.
 */
function ChatUnreadSync() {
  const setUnread = useSetAtom(chatUnreadTotalAtom);
  useEffect(() => {
    const reload = () =>
      api<{ unread_count: number }>("/chat/unread")
        .then((res) => setUnread(res.unread_count))
        .catch(() => {});
    void reload();
    return subscribeMemberChannel({
      open: () => void reload(),
      frame: (frame) => {
        if (frame.type === "conversation" && frame.unread_total !== undefined) {
          setUnread(frame.unread_total);
        }
      },
    });
  }, [setUnread]);
  return null;
}

/**
 * Everything live for a signed-in member (presence, the member channel, the unread total). Loaded
 * as its own chunk after the page, so pages for visitors never download the socket code and its
 * frame schemas.
 */
export default function Live({ memberId }: { memberId: string }) {
  return (
    <>
      <RealtimeProvider memberId={memberId} />
      <ChatUnreadSync />
      <IncomingCall />
    </>
  );
}
