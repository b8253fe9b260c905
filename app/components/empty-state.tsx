import type { ReactNode } from "react";
import { AppLink } from "./link";

/** A way on from an empty list: a link drawn as a small button. */
export interface EmptyStateAction {
  to: string;
  label: string;
  primary?: boolean;
}

/**
 * What a list says when it has nothing to show: the explanation, then the ways on. `className`
 * places it (a card on its own, a line inside a section, the chat list's panel).
 */
export function EmptyState({
  className,
  actions = [],
  children,
}: {
  className?: string;
  actions?: EmptyStateAction[];
  children: ReactNode;
}) {
  return (
    <div className={className ? `${className} empty-help` : "empty-help"}>
      {children}
      {actions.length > 0 ? (
        <div className="empty-help-actions">
          {actions.map((a) => (
            <AppLink
              key={a.to}
              to={a.to}
              className={`btn ${a.primary ? "btn-primary" : "btn-secondary"} btn-sm`}
            >
              {a.label}
            </AppLink>
          ))}
        </div>
      ) : null}
    </div>
  );
}
