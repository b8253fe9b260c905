import { RECEIVED_IDS_MAX } from "./frames";

/**
 * How a page acknowledges the other member's messages it received (`{type: "received", ids}`,
 * docs/decisions/038): the first at once, so that a quiet conversation shows "Delivered" at once;
 * then at most one frame every RECEIVED_EVERY_MS with everything that arrived meanwhile, so that a
 * busy one costs the room one frame a second, not one a message. The chat page and bench/chat use
 * it alike.
 */
export const RECEIVED_EVERY_MS = 1_000;

export class ReceivedBatch {
  private ids: string[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastSentAt = Number.NEGATIVE_INFINITY;

  constructor(
    /** Sends one frame's ids; false when it could not (they are kept for the next try). */
    private readonly send: (ids: string[]) => boolean,
    private readonly everyMs = RECEIVED_EVERY_MS,
    private readonly now: () => number = () => Date.now(),
  ) {}

  add(id: string) {
    if (!this.ids.includes(id)) this.ids.push(id);
    if (this.timer) return;
    const wait = this.lastSentAt + this.everyMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends what is waiting now (also when the socket reopens). */
  flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ids.length === 0) return;
    const ids = this.ids.slice(0, RECEIVED_IDS_MAX);
    if (!this.send(ids)) return;
    this.ids = this.ids.slice(ids.length);
    this.lastSentAt = this.now();
    if (this.ids.length > 0) this.timer = setTimeout(() => this.flush(), this.everyMs);
  }

  /** Ids still waiting (tests). */
  get waiting(): readonly string[] {
    return this.ids;
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
