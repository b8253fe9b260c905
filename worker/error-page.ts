const TITLES: Record<number, string> = {
  401: "Please sign in",
  403: "Not allowed",
  404: "Page not found",
  419: "Page expired",
  423: "Password confirmation required",
  429: "Too many requests",
  500: "Something went wrong",
  503: "Unavailable",
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A minimal page for errors raised before Remix renders (never a stack trace). */
export function errorPage(status: number, message?: string, requestId?: string): string {
  const title = TITLES[status] ?? "Error";
  const detail =
    status === 419
      ? "This page was open for too long. Reload it and try again."
      : status >= 500
        ? "We could not finish that request. Please try again in a moment."
        : (message ?? "");
  return `<!doctype html><html lang="en" class="dark"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)} - Heartline</title>
<style>body{margin:0;min-height:100vh;display:grid;place-items:center;background:#151018;color:#f4eef6;font-family:system-ui,sans-serif}main{text-align:center;padding:2rem}h1{font-size:3rem;margin:0;color:#ff4d8d}a{color:#ff4d8d}</style></head>
<body><main><h1>${status}</h1><p>${escape(title)}</p><p>${escape(detail)}</p>${requestId ? `<p><small>Reference: ${escape(requestId)}</small></p>` : ""}<p><a href="/">Back to Heartline</a></p></main></body></html>`;
}
