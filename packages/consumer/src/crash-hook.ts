import { writeSync } from "node:fs";

/**
 * Points in the runtime where the crash test (scripts/crash-test.ts) kills a worker process with
 * SIGKILL, to prove that no point loses a message or creates an effect twice.
 */
export const CRASH_POINTS = ["after-decide", "after-started", "after-provider-call", "after-commit"] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export const CRASH_ENV = "REVIEW_CONSOLE_CRASH_AT";
/** What a killed worker writes to stderr just before it dies, so the test can count kills per point. */
export const CRASH_MARKER = "review-console-crash-at";

/** `point:probability[,point:probability]`, e.g. `after-started:0.05`. Unknown points are an error. */
export function parseCrashSpec(spec: string): Map<CrashPoint, number> {
  const points = new Map<CrashPoint, number>();
  for (const part of spec
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, probability] = part.split(":");
    if (!CRASH_POINTS.includes(name as CrashPoint)) {
      throw new Error(`${CRASH_ENV}: unknown crash point ${name} (known: ${CRASH_POINTS.join(", ")})`);
    }
    const p = probability === undefined ? 1 : Number(probability);
    if (!(p >= 0 && p <= 1)) throw new Error(`${CRASH_ENV}: probability of ${name} must be within 0..1`);
    points.set(name as CrashPoint, p);
  }
  return points;
}

function hookFromEnvironment(): (point: CrashPoint) => void {
  const spec = process.env[CRASH_ENV];
  // Unset in production: the hook is a function that does nothing, decided once at load.
  if (!spec) return () => {};
  const points = parseCrashSpec(spec);
  return (point) => {
    const probability = points.get(point);
    if (probability === undefined || Math.random() >= probability) return;
    // Synchronous, so the line is out before the process is gone.
    writeSync(2, `${CRASH_MARKER} ${point}\n`);
    process.kill(process.pid, "SIGKILL");
  };
}

/** Kills this process with SIGKILL at `point` when REVIEW_CONSOLE_CRASH_AT asks for it; else nothing. */
export const crashPoint: (point: CrashPoint) => void = hookFromEnvironment();
