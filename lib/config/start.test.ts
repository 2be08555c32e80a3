import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// The real start paths refuse a bad configuration, naming every bad variable: the console's
// server (scripts/serve.ts, which `npm start` runs), Next's register() (instrumentation.ts, for a
// plain `next start` or the standalone server), and the CLI.

const root = path.resolve(import.meta.dirname, "../..");

/** `node <args>` in the repository with these variables added; a blank value unsets one. */
function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, VITEST: "", ...env },
    input: "",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const bad = { OPERATIONS_TICK_MS: "abc", WEBHOOK_ALLOWED_NETWORKS: "10.0.0.0/33" };
const lines = [
  'error: OPERATIONS_TICK_MS: expected a positive integer, got "abc"',
  'error: WEBHOOK_ALLOWED_NETWORKS: "10.0.0.0/33" is not an address or a CIDR range (10.0.0.0/8, ::1/128)',
];

describe("a bad variable stops the start, named", () => {
  it("scripts/serve.ts exits 2 before it loads Next, every bad variable on a line of its own", () => {
    const result = run(["--import", "tsx", "scripts/serve.ts", "-p", "39998"], bad);
    expect(result.stderr.trim().split("\n")).toEqual(lines);
    expect(result.stdout).not.toContain("Ready on");
    expect(result.code).toBe(2);
  });

  it("the CLI exits 1 with the same lines, before running the command", () => {
    const result = run(["bin/review-console.mjs", "domain", "list"], {
      ...bad,
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    });
    expect(result.stderr.trim().split("\n")).toEqual(lines);
    expect(result.code).toBe(1);
  });
});

describe("instrumentation.ts register()", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("ends the process (2) naming the bad variable before it starts the dispatcher or the notifier", async () => {
    vi.stubEnv("NEXT_RUNTIME", "nodejs");
    vi.stubEnv("WEBHOOK_CONCURRENCY", "lots");
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { register } = await import("@/instrumentation");
    await expect(register()).rejects.toThrow("exit 2");
    expect(exit).toHaveBeenCalledWith(2);
    expect(errors.mock.calls).toEqual([['error: WEBHOOK_CONCURRENCY: expected a positive integer, got "lots"']]);
  });
});
