import { createContext, useContext, type ReactNode } from "react";

/**
 * The Content-Security-Policy nonce of the page being rendered (docs/decisions/009): the server
 * renders it on every inline script (Remix's and the theme script); in the browser it is empty,
 * as browsers hide a nonce from the DOM once the page has loaded.
 */
const NonceContext = createContext("");

export function NonceProvider({ nonce, children }: { nonce: string; children: ReactNode }) {
  return <NonceContext.Provider value={nonce}>{children}</NonceContext.Provider>;
}

export const useNonce = () => useContext(NonceContext);
