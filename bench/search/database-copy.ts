import { cp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import type { Env } from "~/server/env.server";
import { benchStateRoot } from "../lib/worker";

/**
 * A copy of the search benchmark's database (the state bench/search/run.ts left), opened through
 * local D1 as the migration runner reaches it, so that a measurement may change it freely.
 * `close()` disposes of the proxy and removes the copy.
 */
export async function copyOfSearchDatabase(name: string) {
  const source = path.join(benchStateRoot(), "search");
  const copy = path.join(benchStateRoot(), name);
  await rm(copy, { recursive: true, force: true });
  await cp(source, copy, { recursive: true });
  const proxy = await getPlatformProxy<Env>({
    configPath: path.join(copy, "wrangler.json"),
    persist: { path: path.join(copy, "persist", "v3") },
  });
  return {
    source,
    db: proxy.env.DB,
    env: proxy.env,
    async close() {
      await proxy.dispose();
      await rm(copy, { recursive: true, force: true });
    },
  };
}

/** A migration file's statements, its comment lines left out. */
export async function migrationStatements(file: string): Promise<string[]> {
  const text = await readFile(`migrations/${file}`, "utf8");
  return text
    .split("--> statement-breakpoint")
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter(Boolean);
}
