import type { ClientIdClaim } from "~/server/room-api.server";

type Lease = NonNullable<ClientIdClaim["lease"]>;

/**
 * The client-id leases this room holds, by sender (durable-objects/client-id-claims.ts): while it
 * holds a member's lease, a new client id of theirs is stored without asking their hub, unless
 * they used it in another conversation. Kept in memory only: after a restart the room asks again,
 * and the hub hands the lease it still holds for it back. When the hub takes a lease back, the
 * room reports the ids it stored since it was granted (they are in its messages).
 */
export class ClientIdLeases {
  private held = new Map<string, { epoch: number; elsewhere: Set<string> }>();
  /** The newest lease surrendered, by sender: a grant no newer (an answer that came late) is void. */
  private surrendered = new Map<string, number>();

  /** Whether `senderId` may use `clientId` here without asking their hub. */
  covers(senderId: string, clientId: string): boolean {
    const lease = this.held.get(senderId);
    return lease !== undefined && !lease.elsewhere.has(clientId);
  }

  /** The hub's answer to a claim of this conversation: the lease it grants or holds for it, or none. */
  take(senderId: string, lease: Lease | null) {
    if (!lease) {
      this.held.delete(senderId);
      return;
    }
    if (lease.epoch <= (this.surrendered.get(senderId) ?? 0)) return;
    if ((this.held.get(senderId)?.epoch ?? 0) >= lease.epoch) return;
    this.held.set(senderId, { epoch: lease.epoch, elsewhere: new Set(lease.elsewhere) });
  }

  /** The hub takes lease `epoch` back. */
  surrender(senderId: string, epoch: number) {
    this.surrendered.set(senderId, Math.max(epoch, this.surrendered.get(senderId) ?? 0));
    if ((this.held.get(senderId)?.epoch ?? 0) <= epoch) this.held.delete(senderId);
  }

  /** The conversation was erased. */
  forget() {
    this.held.clear();
  }
}
