import "dotenv/config";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { resolveTestServer } from "@/testing/db/test-server";
import { runMain } from "./run-main";

// `npm test`: every tier. Unit and integration (vitest), then a production build and the
// Playwright specs. Each test file makes its own database on one PostgreSQL server: the one
// of TEST_PG_SERVER_URL or DATABASE_URL, else an embedded one started (and stopped) here.

const root = path.resolve(import.meta.dirname, "..");
// Entry points by path: not every package exports its CLI file.
const bin = (file: string) => path.join(root, "node_modules", file);
// Not test-results/: Playwright empties that folder when it starts.
const results = path.join(root, "test-reports");

function run(label: string, args: string[], env: NodeJS.ProcessEnv): number {
  console.log(`\n=== ${label}`);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit", env });
  return result.status ?? 1;
}

function readCounts(file: string, pick: (json: any) => [number, number]): [number, number] {
  if (!existsSync(file)) return [0, 0];
  try {
    return pick(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return [0, 0];
  }
}

async function main(): Promise<number> {
  const server = await resolveTestServer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEST_PG_SERVER_URL: server.serverUrl,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  rmSync(results, { recursive: true, force: true });
  try {
    // `scripts/test.ts vitest -- <files>`: one tier, and only these files of it.
    const args = process.argv.slice(2);
    const split = args.indexOf("--");
    const only = split < 0 ? args : args.slice(0, split);
    const files = split < 0 ? [] : args.slice(split + 1);
    const tiers = only.length ? only : ["vitest", "e2e"];
    let failed = 0;
    if (tiers.includes("vitest")) {
      failed +=
        run(
          "unit and integration (vitest)",
          [
            bin("vitest/vitest.mjs"),
            "run",
            "--reporter=default",
            "--reporter=json",
            `--outputFile.json=${path.join(results, "vitest.json")}`,
            ...files,
          ],
          env,
        ) === 0
          ? 0
          : 1;
    }
    if (tiers.includes("e2e")) {
      // As `npm run build`: next build, then the standalone output e2e/standalone.spec.ts runs.
      const standalone = ["--import", "tsx", path.join(root, "scripts", "build-standalone.ts")];
      const build =
        run("production build (next build)", [bin("next/dist/bin/next"), "build"], env) === 0
          ? run("standalone output (scripts/build-standalone.ts)", standalone, env)
          : 1;
      failed +=
        build === 0
          ? run("end to end (playwright, Debian chromium)", [bin("@playwright/test/cli.js"), "test"], env) === 0
            ? 0
            : 1
          : 1;
    }
    const [vPassed, vFailed] = readCounts(path.join(results, "vitest.json"), (j) => [
      j.numPassedTests,
      j.numFailedTests,
    ]);
    const [pPassed, pFailed] = readCounts(path.join(results, "playwright.json"), (j) => [
      j.stats.expected,
      j.stats.unexpected + j.stats.flaky,
    ]);
    console.log(`\ntotal: ${vPassed + pPassed} passed, ${vFailed + pFailed} failed`);
    // The reports count too: a runner whose exit code got lost must not turn failures green.
    return failed === 0 && vFailed + pFailed === 0 ? 0 : 1;
  } finally {
    await server.stop();
  }
}

runMain(main);
