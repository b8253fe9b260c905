import { onlineCountAtom, usePresenceValue } from "~/state/presence";

/** "N members online", from the presence room's `online_count` (nothing until it has said). */
export function OnlineCount() {
  const count = usePresenceValue(onlineCountAtom);
  if (count === null || count < 1) return null;
  return (
    <p className="presence presence-online" data-testid="online-count">
      <span className="presence-dot" aria-hidden="true" /> {count.toLocaleString("en-US")}{" "}
      {count === 1 ? "member" : "members"} online
    </p>
  );
}
