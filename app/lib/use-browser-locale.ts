import { useEffect, useState } from "react";

/**
 * The member's locale once the page has loaded (the server renders kilometres; the browser then
 * shows miles where its locale uses them: app/lib/distance.ts).
 */
export function useBrowserLocale(): string | undefined {
  const [locale, setLocale] = useState<string | undefined>(undefined);
  useEffect(() => setLocale(navigator.language), []);
  return locale;
}
