import { timeAgo } from "~/lib/members";
import { useNow } from "~/state/clock";

/**
 * "Active 5 minutes ago": rendered from the server's clock first (identical in the server HTML
 * and the hydrating render), then from the browser's, and kept current while the page is open.
 */
export function TimeAgo({ iso, prefix = "" }: { iso: string; prefix?: string }) {
  const now = useNow();
  return (
    <time dateTime={iso} title={new Date(iso).toUTCString()}>
      {prefix}
      {timeAgo(iso, now)}
    </time>
  );
}
