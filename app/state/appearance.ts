import { atom } from "./jotai";
import {
  appearanceCookie,
  APPEARANCE_STORAGE_KEY,
  DEFAULT_APPEARANCE,
  type Appearance,
} from "~/lib/theme";

/** The member's appearance choice; seeded from the cookie the server rendered with. */
export const appearanceAtom = atom<Appearance>(DEFAULT_APPEARANCE);

/** Stores the choice in the atom, localStorage and the cookie, and applies it to the page. */
export const setAppearanceAtom = atom(null, (_get, set, appearance: Appearance) => {
  set(appearanceAtom, appearance);
  if (typeof document === "undefined") return;
  document.documentElement.dataset.theme = appearance;
  document.cookie = appearanceCookie(appearance);
  try {
    localStorage.setItem(APPEARANCE_STORAGE_KEY, appearance);
  } catch {
    // Private browsing may refuse storage; the cookie still keeps the choice.
  }
});
