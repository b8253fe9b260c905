import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";

/**
 * `/chat/{conversationId}`: the address a notification opens (API.md "Away from the app"), the
 * conversation on the chat page. Who may read it is the chat page's to decide, as for any link.
 * `/chat/conversations` is the JSON list's path (worker/api/chat.ts); a browser asking for it as a
 * page gets the chat page itself.
 */
export function loader({ params }: LoaderFunctionArgs) {
  const id = params.conversationId ?? "";
  if (id === "conversations") return redirect("/chat");
  return redirect(`/chat?${new URLSearchParams({ conversation: id })}`);
}
