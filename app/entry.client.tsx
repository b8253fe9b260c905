import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { registerServiceWorker } from "~/lib/service-worker";

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  });
}

// The server's HTML is the page: it is painted first, and hydration starts in the task after that
// frame, so that a slow phone shows the page without waiting for React to take it over. (A page
// opened in the background has no frames to wait for: it hydrates at once.)
if (document.visibilityState === "visible") requestAnimationFrame(() => setTimeout(hydrate, 0));
else hydrate();

registerServiceWorker();
