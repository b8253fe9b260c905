/**
 * A built tree of an earlier commit, for a benchmark that compares it with this one in the same
 * run (`--compare-ref`): `git archive` of the commit into a folder under `base` (once per commit,
 * kept for the next run), linked to this checkout's node_modules, built with `npm run build`.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { ROOT } from "./worker";

/** Builds git `ref` (once per commit) and returns its commit and the folder it is built in. */
export async function buildRef(
  ref: string,
  base: string,
  log: (message: string) => void,
): Promise<{ sha: string; root: string }> {
  const sha = execFileSync("git", ["rev-parse", ref], { cwd: ROOT }).toString().trim();
  const root = path.join(base, `tree-${sha.slice(0, 10)}`);
  if (!existsSync(path.join(root, "build", "server", "index.js"))) {
    log(`building ${ref} (${sha.slice(0, 10)}) in ${root}`);
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    execFileSync("sh", ["-c", `git archive ${sha} | tar -x -C ${JSON.stringify(root)}`], {
      cwd: ROOT,
    });
    await symlink(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
    await new Promise<void>((resolve, reject) => {
      const child = spawn("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`build: ${code}`))));
    });
  }
  return { sha, root };
}
