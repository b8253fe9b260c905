/**
 * How many presence sockets a shard takes a second, and what it tells the others (issue #29,
 * docs/decisions/047): a shard joins up to `perSecond` sockets a second (a bucket of one second's
 * worth, refilled continuously); a socket past that is closed at once with 1013 ("try again
 * later") and `retry=W`, where W spreads every socket turned away lately over the seconds the
 * shard needs to take them: after a deploy, when every tab of a shard comes back within a few
 * seconds, the wave is spread over as long as this shard needs, whatever the shard count.
 * The clients draw their next try from [0, W) (app/realtime/backoff.ts `retryHint`).
 */
export const PRESENCE_TRY_AGAIN_CLOSE = 1013;

/** The longest window a shard names (the clients cap it at MAX_HINT_MS too). */
export const MAX_RETRY_SECONDS = 120;

/** How fast the count of sockets turned away forgets (their tries come back within the window). */
const TURNED_AWAY_HALF_LIFE_MS = 5_000;

export class JoinGate {
  private tokens: number;
  private at: number;
  /** Sockets turned away lately, decaying with TURNED_AWAY_HALF_LIFE_MS. */
  private turnedAway = 0;
  private turnedAwayAt: number;

  constructor(
    private readonly perSecond: number,
    now = Date.now(),
  ) {
    this.tokens = perSecond;
    this.at = now;
    this.turnedAwayAt = now;
  }

  /** 0: join now; otherwise the window (seconds) the socket is told to come back within. */
  admit(now = Date.now()): number {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    this.turnedAway =
      this.turnedAway * 0.5 ** ((now - this.turnedAwayAt) / TURNED_AWAY_HALF_LIFE_MS) + 1;
    this.turnedAwayAt = now;
    return Math.min(MAX_RETRY_SECONDS, Math.max(1, Math.ceil(this.turnedAway / this.perSecond)));
  }
}

/** The close reason that names the window (`retryHint` reads it). */
export const tryAgainReason = (seconds: number) => `Busy, retry=${seconds}`;
