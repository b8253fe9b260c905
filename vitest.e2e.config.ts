import { defineConfig } from "vitest/config";

/**
 * Browser tests: plain Node test files that drive Debian's Chromium through playwright-core against
 * one Worker started by tests/e2e/global-setup.ts. Needs `npm run build` first.
 */
export default defineConfig({
  test: {
    environment: "node",
    include: ["tests/e2e/**/*.e2e.test.ts"],
    globalSetup: ["./tests/e2e/global-setup.ts"],
    pool: "forks",
    // Each file launches its own browser; a few at a time keep a small CI machine responsive.
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
    // A browser test that fails once fails: a retry would hide exactly the flakiness to fix.
    retry: 0,
  },
});
