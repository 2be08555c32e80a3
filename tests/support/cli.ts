import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

export interface CliRun {
  /** The exit code (null if a signal ended it). */
  code: number | null;
  stdout: string;
  /** stdout then stderr, for messages and for an assertion's report. */
  out: string;
}

/**
 * `review-console ARGS` as an operator runs it: a child process against `databaseUrl` (its
 * DATABASE_URL), with nothing on stdin. `env` adds to the environment; an `undefined` value
 * leaves that variable out.
 */
export function runCli(databaseUrl: string, args: string[], env: Record<string, string | undefined> = {}): CliRun {
  const result = spawnSync(process.execPath, [path.join(root, "bin/review-console.mjs"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    input: "",
  });
  return { code: result.status, stdout: result.stdout, out: `${result.stdout}${result.stderr}` };
}
