import { z } from "zod";
import { globalConfig } from "zod/v4/core";

/**
 * zod for the code that also runs in the browser. Its JIT compiles object parsers with
 * `new Function`, which the pages' Content-Security-Policy refuses (and Chromium reports as a
 * CSP issue): the same checks run without it. (Set on zod's config object itself: a
 * `z.config()` call is dropped by the bundler's tree-shaking.)
 */
globalConfig.jitless = true;

export { z };
