import { useIsOnline } from "~/state/presence";

/**
 * The green dot on a member's photo while they are online: live from the presence room for the
 * members the page watches (usePresenceWatch), else what the server rendered (`online`).
 */
export function OnlineDot({ memberId, online }: { memberId: string; online: boolean }) {
  const live = useIsOnline(memberId, online);
  return live ? <span className="member-row-online" role="img" aria-label="Online" /> : null;
}
