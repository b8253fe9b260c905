import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

declare module "@remix-run/cloudflare" {
  interface Future {
    v3_singleFetch: false;
  }
}

export default defineConfig({
  plugins: [
    remix({
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  ssr: {
    target: "webworker",
    noExternal: true,
    resolve: {
      conditions: ["workerd", "worker", "browser"],
      externalConditions: ["workerd", "worker"],
    },
  },
  build: {
    minify: true,
    sourcemap: false,
    rollupOptions: {
      onwarn(warning, warn) {
        // zod's bundled comments and Remix's resource-only routes: harmless, and noisy.
        if (warning.code === "INVALID_ANNOTATION" || warning.code === "EMPTY_BUNDLE") return;
        warn(warning);
      },
    },
  },
  logLevel: "warn",
});
