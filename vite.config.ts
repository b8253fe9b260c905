import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig, type Plugin } from "vite";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
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

/**
 * Modules that only define values at their top level: the schemas (app/schemas) and the socket
 * frames (app/realtime). A page often imports one constant or helper of such a module (a limit, a
 * label, a query string builder); the module's zod schemas then run at load and bring zod with
 * them (27 KB gzip, and the longest task before a page is interactive), although nothing on the
 * page parses with them.
 */
const VALUE_MODULES = /\/app\/(schemas\/[^/]+|realtime\/(chat|member|presence))\.ts$/;

/**
 * For the browser build: marks the calls that compute each top-level constant of a value module
 * as pure (the outer call and every call among its arguments, but not calls inside functions,
 * which run later), so that the bundler drops the constants a page never reads, and zod with
 * them, and keeps the ones it does. Declarations only: a bare statement keeps running as written,
 * but only on pages that use something of its module (app/schemas/zod.ts configures zod only
 * where a schema is kept).
 */
function pureModuleConstants(): Plugin {
  return {
    name: "heartline:pure-module-constants",
    apply: "build",
    enforce: "post",
    transform(code, id, options) {
      if (options?.ssr || !VALUE_MODULES.test(id.split("?")[0]!)) return null;
      const program = this.parse(code) as unknown as { body: Node[] };
      const starts = new Set<number>();
      for (const node of program.body) {
        const declaration =
          node.type === "ExportNamedDeclaration" ? (node.declaration as Node | null) : node;
        if (declaration?.type !== "VariableDeclaration") continue;
        for (const declarator of declaration.declarations as Node[]) {
          collectCalls(declarator.init, starts);
        }
      }
      let out = code;
      for (const start of [...starts].sort((a, b) => b - a)) {
        out = `${out.slice(0, start)}/* @__PURE__ */ ${out.slice(start)}`;
      }
      return { code: out, map: null, moduleSideEffects: false };
    },
  };
}

type Node = { type: string; start: number; [key: string]: unknown };

const FUNCTIONS = new Set(["ArrowFunctionExpression", "FunctionExpression", "ClassExpression"]);

function collectCalls(value: unknown, starts: Set<number>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectCalls(item, starts);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const node = value as Node;
  if (FUNCTIONS.has(node.type)) return;
  if (node.type === "CallExpression" || node.type === "NewExpression") starts.add(node.start);
  for (const [key, child] of Object.entries(node)) {
    if (key !== "type" && key !== "start" && key !== "end") collectCalls(child, starts);
  }
}

/**
 * The service worker (app/service-worker/sw.js) as /sw.js of the browser build, its __VERSION__
 * the hash of its own source and of the public files it keeps (the offline page's): a deploy that
 * changes any of them changes the worker's bytes, which is what makes browsers install it again.
 */
function serviceWorker(): Plugin {
  const source = new URL("./app/service-worker/sw.js", import.meta.url);
  const kept = ["offline.html", "offline.css", "icons/icon-192.png", "favicon.svg"].map(
    (file) => new URL(`./public/${file}`, import.meta.url),
  );
  let ssr = false;
  return {
    name: "heartline:service-worker",
    apply: "build",
    configResolved(config) {
      ssr = Boolean(config.build.ssr);
    },
    generateBundle() {
      if (ssr) return;
      const code = readFileSync(source, "utf8");
      const hash = createHash("sha256").update(code);
      for (const file of kept) hash.update(readFileSync(file));
      this.emitFile({
        type: "asset",
        fileName: "sw.js",
        source: code.replace('"__VERSION__"', JSON.stringify(hash.digest("hex").slice(0, 16))),
      });
    },
  };
}

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
    pureModuleConstants(),
    serviceWorker(),
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
      // Chunks under 8 KB join a chunk that loads with them: the dashboard makes 19 script
      // requests instead of 21 (on a phone's slow network each round of requests costs a round
      // trip before the first paint) for a few KB gzip more of code it does not run. At 10 KB the
      // verification and appeal pages' code joined chunks the sign-in page loads (123 KB gzip
      // there; 113 KB at 8 KB).
      output: { experimentalMinChunkSize: 8_000 },
      onwarn(warning, warn) {
        // zod's bundled comments and Remix's resource-only routes: harmless, and noisy.
        if (warning.code === "INVALID_ANNOTATION" || warning.code === "EMPTY_BUNDLE") return;
        warn(warning);
      },
    },
  },
  logLevel: "warn",
});
