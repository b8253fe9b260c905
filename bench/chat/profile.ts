/**
 * A V8 CPU profile of the Worker's isolate (its Durable Objects included) through workerd's
 * inspector, for `bench/chat/run.ts --profile FILE`: started before a target's turn, stopped
 * after it, written as a `.cpuprofile` (Chrome DevTools opens it) with a summary of where the
 * time went, by function (self time) and by the product's own functions (total time, callees
 * included). The inspector slows the Worker down: a profiled run's latencies are not figures.
 */
import { writeFile } from "node:fs/promises";
import { connectInspector, type InspectorSession } from "../lib/inspector";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export class Profiler {
  private constructor(private readonly cdp: InspectorSession) {}

  /** Connects to the Worker's isolate through wrangler's inspector proxy (BenchWorker.inspectorUrl). */
  static async connect(url: string): Promise<Profiler> {
    const cdp = await connectInspector(url);
    // wrangler turns the Network domain on, which slows every D1 call (bench/profile does the same).
    await cdp.send("Network.disable");
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    return new Profiler(cdp);
  }

  async start() {
    await this.cdp.send("Profiler.start");
  }

  /** Stops, writes the profile to `file` and prints its summary. */
  async stop(file: string, messages: number) {
    const { profile } = await this.cdp.send<{ profile: CpuProfile }>("Profiler.stop");
    await writeFile(file, JSON.stringify(profile));
    console.log(summary(profile, messages));
  }

  close() {
    this.cdp.close();
  }
}

const GAP_US = 50_000;

const where = (n: ProfileNode) => {
  const file = n.callFrame.url.split("/").slice(-2).join("/");
  return `${n.callFrame.functionName || "(anonymous)"} ${file}:${n.callFrame.lineNumber + 1}`;
};

/** The top functions by self time, and the product's functions by total time, per message. */
export function summary(profile: CpuProfile, messages: number, top = 30): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const us = deltas[i + 1] ?? 0;
    // A gap this long is the profiler waiting between turns, not a sample.
    if (us > GAP_US) continue;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + us);
  }
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    all += us;
    if (node.callFrame.functionName === "(idle)") idle += us;
    self.set(where(node), (self.get(where(node)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = where(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
    }
  }
  const perMessage = (us: number) => `${(us / 1000 / Math.max(1, messages)).toFixed(3)} ms`;
  const lines = [
    `profile: ${((all - idle) / 1000).toFixed(0)} ms busy of ${(all / 1000).toFixed(0)} ms sampled, ` +
      `${messages} messages: ${perMessage(all - idle)} a message in the isolate`,
    "self time (per message):",
  ];
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${perMessage(us).padStart(9)}  ${key}`);
  }
  lines.push("total time of the product's functions (per message):");
  const own = [...total].filter(
    ([key]) => !key.includes("node_modules") && !key.startsWith("(") && /\.[jt]s:/.test(key),
  );
  for (const [key, us] of own.sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${perMessage(us).padStart(9)}  ${key}`);
  }
  return lines.join("\n");
}
