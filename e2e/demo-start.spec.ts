import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { withConnection } from "../lib/db/connection";
import { resolveTestServer } from "../testing/db/test-server";
import { freePort, waitForHealth } from "../lib/net/local-server";

// `npm start -- --demo` on a fresh clone against a database of one's own: DATABASE_URL set, no
// data folder yet. The first start seeds the demo set, creates the folder for the sign-ins,
// prints them and serves; the next start prints the same ones again, from that file.

const root = path.resolve(import.meta.dirname, "..");

interface Started {
  child: ChildProcess;
  output: () => string;
}

function npmStart(env: NodeJS.ProcessEnv): Started {
  let output = "";
  // Its own process group: npm, tsx and the console server it starts all stop together.
  const child = spawn("npm", ["start", "--", "--demo"], { cwd: root, env, detached: true });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
}

/**
 * Until nothing answers on `base` any more. npm exits before the console it started has closed
 * its port (the console has its own process group and a few seconds to finish its requests), and
 * a health check of the next start must not be answered by the last one.
 */
async function untilClosed(base: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(1_000) });
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`${base} still answers ${timeoutMs} ms after its npm start stopped`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The sign-in and token lines `npm start` printed, in order. */
function printedSignIns(output: string): string[] {
  return [
    ...output.matchAll(/^ {2}(owner|support|auditor|admin)\s+(\S+@demo\.local)\s+(\S+)$/gm),
    ...output.matchAll(/^ {2}(owner|support|auditor|admin|consumer)\s+(rct_\S+)$/gm),
  ].map((m) => m.slice(1).join(" "));
}

test("npm start -- --demo with DATABASE_URL on a fresh clone seeds, keeps and prints the demo sign-ins", async ({
  request,
}) => {
  test.setTimeout(300_000);
  const pgServer = await resolveTestServer();
  const name = `rc_demo_start_${randomBytes(4).toString("hex")}`;
  const databaseUrl = new URL(pgServer.serverUrl);
  databaseUrl.pathname = `/${name}`;
  await withConnection(pgServer.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const parent = await mkdtemp(path.join(os.tmpdir(), "rc-demo-start-"));
  // Not there yet, like .data/ on a fresh clone; two levels, so only a recursive mkdir makes it.
  const dataDir = path.join(parent, "state", "data");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl.toString(),
    PORT: String(port),
    REVIEW_CONSOLE_DATA_DIR: dataDir,
    // Sessions are not part of this test: the auth key need not land in the data folder first.
    BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
    LOG_LEVEL: "warn",
  };
  delete env.MIGRATION_DATABASE_URL;
  delete env.TEST_PG_SERVER_URL;
  let running: Started | undefined;
  try {
    running = npmStart(env);
    await waitForHealth(base, running.child, running.output, { timeoutMs: 240_000, label: "npm start", pollMs: 500 });
    const first = printedSignIns(running.output());
    expect(first, "four people and five tokens printed").toHaveLength(9);

    const file = path.join(dataDir, "demo-credentials.json");
    expect(existsSync(file), "the data folder and the sign-ins file were created").toBe(true);
    const kept = JSON.parse(await readFile(file, "utf8")) as {
      users: { role: string; email: string; password: string }[];
      tokens: { role: string; token: string }[];
    };
    expect(first).toEqual([
      ...kept.users.map((u) => `${u.role} ${u.email} ${u.password}`),
      ...kept.tokens.map((t) => `${t.role} ${t.token}`),
    ]);

    // A token as printed, not as read from the file.
    const owner = first.find((line) => /^owner rct_/.test(line))!.split(" ")[1];
    const list = await request.get(`${base}/api/v1/reviews?limit=100`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(list.status()).toBe(200);
    expect((await list.json()).items.length, "the demo set was seeded").toBeGreaterThan(0);

    await stop(running.child);
    await untilClosed(base);
    running = npmStart(env);
    await waitForHealth(base, running.child, running.output, { timeoutMs: 120_000, label: "npm start (again)" });
    expect(running.output(), "no migration is applied the second time").not.toContain("migration applied");
    expect(printedSignIns(running.output())).toEqual(first);
    const again = await request.get(`${base}/api/v1/reviews?limit=1`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(again.status()).toBe(200);
  } finally {
    if (running) await stop(running.child);
    await withConnection(pgServer.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await pgServer.stop();
    await rm(parent, { recursive: true, force: true });
  }
});
