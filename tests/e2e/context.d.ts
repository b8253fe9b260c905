// Values the browser tests' global setup hands to every test file (vitest `provide`/`inject`).
declare module "vitest" {
  export interface ProvidedContext {
    /** Where the Worker under test listens, e.g. `http://127.0.0.1:41234` (no trailing slash). */
    e2eBaseUrl: string;
    /** A moderator written into D1 before the Worker started, and their session token. */
    e2eModerator: { id: string; session: string };
  }
}

export {};
