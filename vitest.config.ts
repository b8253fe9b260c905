import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const timing = process.env.TIMING_TESTS === "1";
const migrations = await readD1Migrations(fileURLToPath(new URL("./migrations", import.meta.url)));

export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          APP_ENV: "test",
          APP_KEY: "test-app-key-that-is-long-enough-for-hmac-0123456789",
          TEST_MIGRATIONS: migrations,
          // A member leaves the presence room this long after their last tab closes (5 s deployed).
          PRESENCE_GRACE_MS: "300",
          // tests/security/fuzz.test.ts: a seed to replay, and how many runs per property.
          FUZZ_SEED: process.env.FUZZ_SEED ?? "",
          FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
          // No STRIPE_SECRET_KEY: payments go through the test provider. Webhooks are signed with
          // this secret, and Stripe calls (tests that set a key) reach the local stand-in.
          STRIPE_WEBHOOK_SECRET: "whsec_test_heartline_webhook_secret",
          STRIPE_API_BASE: `http://127.0.0.1:${inject("stripeStandInPort")}`,
          // The error tracker's local stand-in (tests/setup/error-tracker-stand-in.ts): tests that
          // turn the tracker on pass this as SENTRY_DSN.
          SENTRY_TEST_DSN: `http://public@127.0.0.1:${inject("errorTrackerStandInPort")}/1`,
          // The mail provider's local stand-in (tests/setup/mail-provider-stand-in.ts): tests that
          // send through Resend pass this as RESEND_API_BASE.
          RESEND_TEST_BASE: `http://127.0.0.1:${inject("mailProviderStandInPort")}`,
          // Web push (app/server/push.server.ts): a VAPID key pair made once for the tests, and
          // the push service's local stand-in (tests/setup/push-service-stand-in.ts).
          VAPID_PUBLIC_KEY:
            "BPM2s-DfmNAf153rQBSEttra3d0zumTdw4Fg2FO1nhT3ohrY3Boj4TPzvrGq05yZ59uI2OJ86QGtUfOP7Uv5sDU",
          VAPID_PRIVATE_KEY: "6vfT7B0sBP_J9brrR0Iy2NIk5JhLcn3i6IwsBYdZDmw",
          PUSH_SERVICE_TEST_BASE: `https://localhost:${inject("pushServiceStandInPort")}`,
          // Cloudflare's TURN credentials API's local stand-in (tests/setup/turn-stand-in.ts):
          // tests that configure a TURN key pass this as TURN_API_BASE.
          TURN_TEST_BASE: `http://127.0.0.1:${inject("turnStandInPort")}`,
          // A member away this long (seconds) is pushed what happens (30 deployed).
          AWAY_PUSH_DELAY_SECONDS: "1",
        },
        // Miniflare's own network for outgoing requests, which also trusts the push service
        // stand-in's certificate (push services are https, and so is the stand-in).
        outboundService: {
          network: {
            allow: ["public", "private", "240.0.0.0/4"],
            deny: [],
            tlsOptions: {
              trustBrowserCas: true,
              trustedCertificates: [inject("pushServiceStandInCertificate")],
            },
          },
        },
      },
    })),
  ],
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  test: {
    // Tests that measure time (`*.timing.test.ts`) run in a pass of their own (`npm run
    // test:timing`), with nothing else sharing the machine's cores.
    include: timing ? ["tests/**/*.timing.test.ts"] : ["tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", ...(timing ? [] : ["tests/**/*.timing.test.ts"])],
    setupFiles: ["./tests/setup/apply-migrations.ts"],
    globalSetup: [
      "./tests/setup/stripe-stand-in.ts",
      "./tests/setup/error-tracker-stand-in.ts",
      "./tests/setup/mail-provider-stand-in.ts",
      "./tests/setup/push-service-stand-in.ts",
      "./tests/setup/turn-stand-in.ts",
    ],
    deps: {
      optimizer: {
        ssr: { enabled: true, include: ["@remix-run/cloudflare", "stripe"] },
      },
    },
  },
});
