import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";

/**
 * `/chat/{conversationId}`: the address a notification opens (API.md "Away from the app"), the
 * conversation on the chat page. Who may read it is the chat page's to decide, as for any link.
 */
export function loader({ params }: LoaderFunctionArgs) {
  const search = new URLSearchParams({ conversation: params.conversationId ?? "" });
  return redirect(`/chat?${search}`);
}
