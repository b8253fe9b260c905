/**
 * docs/domain.md "Pages, navigation and appearance": the appearance preference, default dark, kept
 * for 365 days.
 */
export const APPEARANCES = ["dark", "light", "system"] as const;
export type Appearance = (typeof APPEARANCES)[number];
export const DEFAULT_APPEARANCE: Appearance = "dark";
export const APPEARANCE_COOKIE = "appearance";
export const APPEARANCE_STORAGE_KEY = "appearance";
export const APPEARANCE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export function parseAppearance(value: string | null | undefined): Appearance {
  return (APPEARANCES as readonly string[]).includes(value ?? "")
    ? (value as Appearance)
    : DEFAULT_APPEARANCE;
}

/** The theme actually shown: system follows the operating system's dark preference. */
export function resolveTheme(appearance: Appearance, prefersDark: boolean): "dark" | "light" {
  if (appearance === "system") return prefersDark ? "dark" : "light";
  return appearance;
}

export function appearanceCookie(appearance: Appearance): string {
  return `${APPEARANCE_COOKIE}=${appearance}; Path=/; Max-Age=${APPEARANCE_MAX_AGE_SECONDS}; SameSite=Lax`;
}

export function appearanceFromCookieHeader(header: string | null): Appearance {
  const match = header?.match(/(?:^|;\s*)appearance=([^;]*)/);
  return parseAppearance(match?.[1]);
}
