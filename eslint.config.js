import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

/**
 * The server's layers (docs/decisions/013-layers.md): a module imports only from its own layer and
 * the layers below it; type imports count. Each layer lists its app/server modules by name (the
 * file name without `.server.ts`); every other module of app/server is a use case. Circles inside a
 * layer are caught by `npm run lint:cycles`.
 */
const layers = [
  {
    name: "foundations",
    modules: [
      "env",
      "room-api",
      "db",
      "db-time",
      "sql",
      "errors",
      "crypto",
      "log",
      "metrics",
      "cookies",
      "csrf",
      "validation",
      "password",
      "geo",
      "rate-limit",
      "session",
      "socket-ticket",
      "photo-urls",
      "d1-sessions",
    ],
    files: ["app/server/db/**"],
  },
  { name: "read rules", modules: ["visibility", "members"] },
  {
    name: "channels",
    modules: [
      "member-hub",
      "chat-rooms",
      "chat-lists",
      "presence",
      "member-channel",
      "notifications",
      "mail",
      "emails",
    ],
  },
];

/** Entries: nothing below them imports them. */
const entries = {
  regex: "(^|/)(durable-objects|worker|routes)(/|$)|(^|/)(root|entry\\.(server|client))$",
  message:
    "Entries (worker, durable-objects, routes, the root) are imported by nothing below them.",
};

/** A `no-restricted-imports` pattern for the app/server modules outside `allowed`. */
const modulesOutside = (allowed, layer) => ({
  regex: `(^|/)(?!(${allowed.join("|")})\\.server$)[^/]+\\.server$`,
  message: `The ${layer} layer imports only from itself and the layers below (docs/decisions/013-layers.md).`,
});

const layerRules = layers.map((layer, i) => {
  const allowed = layers.slice(0, i + 1).flatMap((l) => l.modules);
  return {
    files: [...layer.modules.map((m) => `app/server/${m}.server.ts`), ...(layer.files ?? [])],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [modulesOutside(allowed, layer.name), entries] },
      ],
    },
  };
});

export default tseslint.config(
  {
    ignores: [
      "build/",
      ".wrangler/",
      "node_modules/",
      "migrations/",
      ".e2e-state/",
      "bench/.state/",
      ".bench-base/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/ban-ts-comment": ["error", { "ts-ignore": "allow-with-description" }],
      "@typescript-eslint/no-empty-object-type": "off",
      "no-console": ["error", { allow: ["error", "warn", "info"] }],
    },
  },
  {
    // Code that runs in the browser takes zod from app/schemas/zod.ts (no eval under the CSP).
    files: ["app/**/*.ts", "app/**/*.tsx"],
    ignores: ["app/schemas/zod.ts", "app/server/**", "app/**/*.server.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "zod",
              message: "Import { z } from ~/schemas/zod (zod without eval, as the CSP requires).",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  ...layerRules,
  {
    // Use cases: every other module of app/server.
    files: ["app/server/**/*.ts"],
    ignores: layerRules.flatMap((l) => l.files),
    rules: { "no-restricted-imports": ["error", { patterns: [entries] }] },
  },
  {
    // Code shared with the browser (and the browser's own) never reaches into the server or the
    // entries: what a page needs from the root or the server comes through app/lib's types.
    files: ["app/lib/**", "app/schemas/**", "app/realtime/**", "app/state/**", "app/components/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            entries,
            {
              regex: "(^|/)server/|\\.server$",
              message: "Code that runs in the browser does not import the server.",
            },
          ],
        },
      ],
    },
  },
  {
    // The service worker: plain JavaScript in the worker's own global scope.
    files: ["app/service-worker/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: {
        self: "readonly",
        caches: "readonly",
        fetch: "readonly",
        Request: "readonly",
        Response: "readonly",
        URL: "readonly",
      },
    },
  },
  {
    files: ["scripts/**", "bench/**", ".ci/**", "*.config.*"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" },
    },
    rules: { "no-console": "off" },
  },
);
