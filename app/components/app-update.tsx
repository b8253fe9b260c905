import { useEffect, useState } from "react";
import { APP_UPDATED } from "~/lib/http";

/**
 * After a deploy (docs/decisions/030): the page keeps working on the version it loaded, says
 * quietly that a new one is ready with a way to refresh, and its next navigation by link loads the
 * new version in full instead of moving inside the old one. Nothing reloads by itself: what the
 * member is typing or reading stays.
 */
export function AppUpdate() {
  const [updated, setUpdated] = useState(false);

  useEffect(() => {
    const onUpdate = () => setUpdated(true);
    window.addEventListener(APP_UPDATED, onUpdate);
    return () => window.removeEventListener(APP_UPDATED, onUpdate);
  }, []);

  useEffect(() => {
    if (!updated) return;
    // Before the app's own link handling (capture, on the window): a plain click on a link to
    // another page of the app becomes a full page load.
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = (event.target as Element | null)?.closest?.("a[href]");
      if (!(link instanceof HTMLAnchorElement)) return;
      if (link.target && link.target !== "_self") return;
      if (link.hasAttribute("download")) return;
      const url = new URL(link.href, window.location.href);
      if (url.origin !== window.location.origin) return;
      const here = window.location;
      if (url.pathname === here.pathname && url.search === here.search && url.hash) return;
      event.preventDefault();
      event.stopPropagation();
      window.location.assign(url.href);
    };
    window.addEventListener("click", onClick, true);
    return () => window.removeEventListener("click", onClick, true);
  }, [updated]);

  if (!updated) return null;
  return (
    <div className="app-update" role="status">
      <span>Heartline has been updated.</span>
      <button type="button" className="link-btn" onClick={() => window.location.reload()}>
        Refresh
      </button>
    </div>
  );
}
