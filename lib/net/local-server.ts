import type { ChildProcess } from "node:child_process";
import net from "node:net";

/** A TCP port on 127.0.0.1 that is free right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Waits until the console started as `child` answers `GET /api/health` with 200; fails early,
 * with the child's output, when the child exits first or the time runs out.
 */
export async function waitForHealth(
  baseURL: string,
  child: ChildProcess,
  output: () => string,
  options: { timeoutMs: number; label: string; pollMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${options.label} exited with ${child.exitCode}:\n${output()}`);
    const ok = await fetch(`${baseURL}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, options.pollMs ?? 200));
  }
  throw new Error(`${options.label} gave no health answer within ${options.timeoutMs / 1000} s:\n${output()}`);
}
