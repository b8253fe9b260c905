import type { ReactNode } from "react";
import { AppShell } from "./shell";

/** The frame of Heartline's Terms, Privacy, Safety and Contact pages. */
export function LegalPage({
  title,
  updated,
  lead,
  children,
}: {
  title: string;
  updated?: string;
  lead: string;
  children: ReactNode;
}) {
  return (
    <AppShell>
      <article className="container legal">
        <header className="legal-head">
          <h1>{title}</h1>
          <p className="lead">{lead}</p>
          {updated ? <p className="muted small">Last updated {updated}</p> : null}
        </header>
        {children}
      </article>
    </AppShell>
  );
}
