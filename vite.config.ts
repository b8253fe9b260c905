import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

/**
 * The oldest browsers the styles are written for, as Lightning CSS targets (major << 16). Newer
 * CSS (light-dark() for the two themes, nesting) is lowered for them at build time: Safari before
 * 17.5 would otherwise drop every themed colour.
 */
const cssTargets = {
  chrome: 100 << 16,
  edge: 100 << 16,
  firefox: 100 << 16,
  safari: 15 << 16,
  ios_saf: 15 << 16,
  samsung: 18 << 16,
};

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
  css: { transformer: "lightningcss", lightningcss: { targets: cssTargets } },
  build: {
    minify: true,
    cssMinify: "lightningcss",
    sourcemap: false,
    rollupOptions: {
      // Modules under 1 KB join a chunk that loads with them: a first visit makes a quarter fewer
      // script requests for the same bytes.
      output: { experimentalMinChunkSize: 1000 },
      onwarn(warning, warn) {
        // zod's bundled comments and Remix's resource-only routes: harmless, and noisy.
        if (warning.code === "INVALID_ANNOTATION" || warning.code === "EMPTY_BUNDLE") return;
        warn(warning);
      },
    },
  },
  logLevel: "warn",
});
