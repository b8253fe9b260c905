import { FRAME_FLOOD_CLOSE, SOCKET_FRAME_LIMIT } from "~/realtime/frames";

/**
 * Counts the frames each socket sends over SOCKET_FRAME_LIMIT's window, in the room's memory (a
 * wake from hibernation starts the count again, which a flood never lets happen: a flooding
 * socket keeps its room awake). One per room.
 */
export class FrameRate {
  private readonly counts = new WeakMap<WebSocket, { windowStart: number; count: number }>();

  /**
   * Counts one frame of `socket`. Past the limit, closes the socket with FRAME_FLOOD_CLOSE and
   * answers false: the caller drops the frame (and marks the socket ended).
   */
  allow(socket: WebSocket, now = Date.now()): boolean {
    const windowMs = SOCKET_FRAME_LIMIT.windowSeconds * 1000;
    const windowStart = now - (now % windowMs);
    const held = this.counts.get(socket);
    const count = held?.windowStart === windowStart ? held.count + 1 : 1;
    this.counts.set(socket, { windowStart, count });
    if (count <= SOCKET_FRAME_LIMIT.max) return true;
    if (count === SOCKET_FRAME_LIMIT.max + 1) {
      try {
        socket.close(FRAME_FLOOD_CLOSE, "Too many frames.");
      } catch {
        // Already closed.
      }
    }
    return false;
  }
}
