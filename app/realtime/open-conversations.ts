/**
 * The conversations this tab has a socket open to (app/realtime/chat-socket.ts): their messages
 * are acknowledged on that socket, so the member channel does not acknowledge them again.
 */
const open = new Map<string, number>();

export function conversationOpened(conversationId: string): () => void {
  open.set(conversationId, (open.get(conversationId) ?? 0) + 1);
  return () => {
    const n = (open.get(conversationId) ?? 1) - 1;
    if (n > 0) open.set(conversationId, n);
    else open.delete(conversationId);
  };
}

export const isConversationOpen = (conversationId: string) => open.has(conversationId);
