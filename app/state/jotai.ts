/**
 * The app's one doorway to jotai: features import atoms and hooks from here, so that the store
 * setup (one Provider per render tree, never a module-level store on the server) stays in one place.
 */
export { atom, Provider, useAtom, useAtomValue, useSetAtom, useStore } from "jotai";
export { useHydrateAtoms } from "jotai/utils";
export type { Atom } from "jotai";
/** A jotai store, as `useStore` gives it (the chat room's socket handlers work on one). */
export type Store = ReturnType<typeof import("jotai").createStore>;
