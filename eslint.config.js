import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "build/",
      ".wrangler/",
      "node_modules/",
      "migrations/",
      ".e2e-state/",
      "bench/.state/",
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
  {
    files: ["scripts/**", "bench/**", ".ci/**", "*.config.*"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" },
    },
    rules: { "no-console": "off" },
  },
);
