/**
 * Writes tests/upgrade/releases.json: for each release tag (`release-N`, the commit deployed at
 * stop N; docs/decisions/024), the migration files that release had and the statements of any that
 * differ from today's file of the same name. tests/upgrade/releases.test.ts builds a database
 * exactly as each release left it from this file, so the test needs no git (a clone may carry no
 * tags). Run after tagging a release: `npx tsx scripts/release-fixtures.ts`.
 *
 * `npx tsx scripts/release-fixtures.ts release-18=d7cb73a …` writes the fixtures for the commits
 * named instead of the tags (to check them before tagging).
 */
import { readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "tests/upgrade/releases.json");
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" });

export interface ReleaseFixture {
  /** The tag, `release-N`. */
  tag: string;
  /** The commit deployed (the tag's). */
  commit: string;
  /** Every migration file the release had, in order. */
  migrations: string[];
  /** The statements of the release's migrations that differ from today's file of that name. */
  changed: { name: string; queries: string[] }[];
}

const stop = (tag: string) => Number(tag.replace(/^release-/, ""));
const named = process.argv.slice(2).map((arg) => {
  const [tag, ref] = arg.split("=");
  if (!tag?.startsWith("release-") || !ref) throw new Error(`expected release-N=commit: ${arg}`);
  return { tag, ref };
});
const releases =
  named.length > 0
    ? named
    : git("tag", "--list", "release-*")
        .split("\n")
        .filter(Boolean)
        .map((tag) => ({ tag, ref: tag }));
if (releases.length === 0) throw new Error("no release-N tags (docs/decisions/024)");
releases.sort((a, b) => stop(a.tag) - stop(b.tag));

const fixtures: ReleaseFixture[] = [];
for (const { tag, ref } of releases) {
  const commit = git("rev-parse", `${ref}^{commit}`).trim();
  const files = git("ls-tree", "--name-only", `${commit}`, "migrations/")
    .split("\n")
    .filter((path) => path.endsWith(".sql"))
    .sort();
  const tmp = mkdtempSync(join(tmpdir(), "release-migrations-"));
  try {
    const differing: string[] = [];
    for (const path of files) {
      const then = git("show", `${commit}:${path}`);
      const today = existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : null;
      if (then === today) continue;
      writeFileSync(join(tmp, path.slice("migrations/".length)), then);
      differing.push(path);
    }
    const changed = differing.length > 0 ? await readD1Migrations(tmp) : [];
    fixtures.push({
      tag,
      commit,
      migrations: files.map((path) => path.slice("migrations/".length)),
      changed: changed.map(({ name, queries }) => ({ name, queries })),
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
writeFileSync(out, `${JSON.stringify(fixtures, null, 2)}\n`);
console.log(`${out}: ${fixtures.map((f) => `${f.tag} (${f.commit.slice(0, 7)})`).join(", ")}`);
