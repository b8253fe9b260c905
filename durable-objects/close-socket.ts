/**
 * Answers a socket's close (or error) by closing it normally. The code a client closed with is
 * never echoed: 1005 and 1006 are not codes one may send, and closing with them throws.
 */
export function closeNormally(socket: WebSocket): void {
  try {
    socket.close(1000, "closing");
  } catch {
    // Already closed.
  }
}
