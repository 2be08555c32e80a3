import { spawn, spawnSync } from "node:child_process";

// Prometheus's own checker (Debian package `prometheus`): what a scrape and the alert rules must
// pass. On CI a missing promtool fails the test (.ci/run installs it); elsewhere the test skips.

export const PROMTOOL = process.env.PROMTOOL ?? "promtool";

/** Whether promtool runs here; when not, fails on CI and warns (the caller skips) elsewhere. */
export function promtoolAvailable(file: string): boolean {
  if (spawnSync(PROMTOOL, ["--version"], { stdio: "ignore" }).status === 0) return true;
  const problem = `${file}: promtool is not installed (Debian: apt-get install prometheus)`;
  if (process.env.CI) throw new Error(`${problem} (on CI these tests fail rather than skip)`);
  console.warn(`${problem}; SKIPPED (on CI this fails)`);
  return false;
}

export interface PromtoolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `promtool <args>`, writing `stdin` to it (`check metrics` reads the scrape from stdin). */
export function promtool(args: string[], stdin?: string): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}
