import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";

/*
 * A reproducible loaded machine for a test (`SCALE_OUT_CPU_HOG=16 npm run test:scale-out`):
 * `count` child processes that do nothing but spin, at normal priority, so the test's own
 * processes compete for the cores as they do on a busy CI runner. Each child also checks every
 * few hundred milliseconds that its parent still lives and exits when it does not, so not even a
 * SIGKILLed test leaves them spinning.
 */

/** The 1-minute load average, from /proc/loadavg where there is one. */
export function oneMinuteLoad(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return os.loadavg()[0]!;
  }
}

const SPIN = `
const parent = Number(process.argv[1]);
for (;;) {
  for (let i = 0; i < 2e8; i++);
  try { process.kill(parent, 0); } catch { process.exit(0); }
}`;

export interface CpuHog {
  readonly count: number;
  /** Kills every spinning child (SIGKILL); safe to call more than once. */
  stop(): void;
}

export function startCpuHog(count: number): CpuHog {
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  };
  // Also when the test ends by process.exit or an uncaught error.
  process.once("exit", stop);
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ["-e", SPIN, String(process.pid)], { stdio: "ignore" });
    child.on("error", () => {});
    children.push(child);
  }
  return { count, stop };
}
