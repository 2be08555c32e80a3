import { readFileSync } from "node:fs";
import path from "node:path";
import { table } from "./support";

// Summarises a V8 .cpuprofile (`node --cpu-prof`): self time per function and per file or
// package, the top of each as a table. No flame graph, no dependency: enough to see where a
// request's CPU time goes. Also runnable by itself: tsx bench/cpu-profile.ts FILE [requests].

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds of the monotonic clock (CLOCK_MONOTONIC on Linux, as process.hrtime). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of the monotonic clock, in microseconds (process.hrtime.bigint() / 1000n). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** `node_modules/<package>` (scoped too), or the file's path below the project, or V8's own label. */
function owner(url: string, functionName: string): string {
  if (!url) return `(${functionName || "native"})`.replace(/^\(\((.*)\)\)$/, "($1)");
  const clean = url.replace(/^file:\/\//, "");
  const modules = clean.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const parts = clean.slice(modules + "node_modules/".length).split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (clean.startsWith("node:")) return clean;
  const next = clean.indexOf("/.next/");
  if (next >= 0) return clean.slice(next + 1);
  return path.basename(clean);
}

/**
 * `windows`: only the samples taken within them (the measured modes of a bench, without the
 * process's start-up and warm-up); all samples when absent.
 */
export function summarizeCpuProfile(
  file: string,
  options: { requests?: number; top?: number; windows?: ProfileWindow[] } = {},
): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample: the time sample i stands for.
  let at = profile.startTime;
  const counted = (us: number) => !options.windows || options.windows.some((w) => us >= w.fromUs && us <= w.toUs);
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (counted(at)) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });

  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") {
      idle += us;
      continue;
    }
    total += us;
    const where = owner(url, functionName);
    const name = `${functionName || "(anonymous)"} ${url ? `${where}:${lineNumber + 1}` : ""}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byOwner.set(where, (byOwner.get(where) ?? 0) + us);
  }
  // Inclusive time: each sample counts once for every distinct function on its stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const label = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    return `${functionName || "(anonymous)"} ${url ? `${owner(url, functionName)}:${lineNumber + 1}` : ""}`.trim();
  };
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)!.callFrame.functionName === "(idle)") continue;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(label(at));
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
  const top = options.top ?? 20;
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => [
        name.length > 110 ? `${name.slice(0, 107)}...` : name,
        (us / 1000).toFixed(0),
        `${((us / total) * 100).toFixed(1)}%`,
      ]);
  const lines = [
    `busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms` +
      (options.requests ? `; busy ms per measured request: ${(total / 1000 / options.requests).toFixed(2)}` : ""),
    "",
    table(["self time by function", "ms", "%"], rows(byFunction)),
    "",
    table(["self time by package / file", "ms", "%"], rows(byOwner)),
    "",
    table(["inclusive time by function", "ms", "%"], rows(inclusive).slice(0, top * 3)),
  ];
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [file, requests] = process.argv.slice(2);
  if (!file) {
    console.error("usage: tsx bench/cpu-profile.ts FILE.cpuprofile [requests]");
    process.exit(2);
  }
  console.log(summarizeCpuProfile(file, { requests: requests ? Number(requests) : undefined, top: 30 }));
}
