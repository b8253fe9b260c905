import { AppLink } from "./link";

/**
 * Newer / Older links of a list shown a page at a time (newest first). `href(page)` gives the
 * link of a page; nothing shows when there is one page.
 */
export function Pager({
  meta,
  href,
}: {
  meta: { page: number; has_more: boolean };
  href: (page: number) => string;
}) {
  if (meta.page <= 1 && !meta.has_more) return null;
  return (
    <nav className="pager" aria-label="Pages">
      {meta.page > 1 ? (
        <AppLink to={href(meta.page - 1)} className="btn btn-secondary">
          Newer
        </AppLink>
      ) : (
        <span />
      )}
      <span className="muted small">Page {meta.page}</span>
      {meta.has_more ? (
        <AppLink to={href(meta.page + 1)} className="btn btn-secondary">
          Older
        </AppLink>
      ) : (
        <span />
      )}
    </nav>
  );
}
