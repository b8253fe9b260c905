import type { D1Migration } from "cloudflare:test";
import type { Env as AppEnv } from "~/server/env.server";

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_MIGRATIONS: D1Migration[];
      FUZZ_SEED: string;
      FUZZ_RUNS: string;
      SENTRY_TEST_DSN: string;
      RESEND_TEST_BASE: string;
      /** The push service's stand-in (tests/setup/push-service-stand-in.ts), https. */
      PUSH_SERVICE_TEST_BASE: string;
      /** Cloudflare's TURN credentials API's stand-in (tests/setup/turn-stand-in.ts). */
      TURN_TEST_BASE: string;
    }
  }
}
