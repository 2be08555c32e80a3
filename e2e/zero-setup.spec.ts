import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, waitForHealth } from "../lib/net/local-server";

// `npm start` on a machine with nothing configured: no DATABASE_URL, no PostgreSQL running.
// It must boot the embedded PostgreSQL, migrate, seed the demo set and serve the API.

const root = path.resolve(import.meta.dirname, "..");

test("npm start with no environment answers health and lists the demo records with a demo token", async ({
  request,
}) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "rc-zero-setup-"));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), REVIEW_CONSOLE_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.TEST_PG_SERVER_URL;
  let output = "";
  const child = spawn("npm", ["start"], { cwd: root, env, detached: true });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base, child, () => output, { timeoutMs: 150_000, label: "npm start", pollMs: 500 });
    expect(output).toContain(`Review Console on ${base}`);
    expect(output).toMatch(/owner\s+owner@demo\.local/);

    const credentials = JSON.parse(await readFile(path.join(dataDir, "demo-credentials.json"), "utf8"));
    const owner = credentials.tokens.find((t: { role: string }) => t.role === "owner").token;
    expect(output).toContain(owner);

    const list = await request.get(`${base}/api/v1/reviews?limit=100`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(list.status()).toBe(200);
    const { items } = await list.json();
    const categories = new Set(items.map((i: { category: string }) => i.category));
    const reasons = new Set(items.map((i: { reason: string }) => i.reason));
    expect([...categories].sort()).toEqual(["effect-result-unknown", "manual-review", "sequence-gap"]);
    for (const reason of [
      "invalid-contract",
      "unsupported-schema",
      "invalid-payload",
      "stale-or-conflicting",
      "sequence-gap",
      "effect-result-unknown",
      "retry-limit",
    ]) {
      expect(reasons, `demo set covers ${reason}`).toContain(reason);
    }
    const refused = await request.get(`${base}/api/v1/reviews`);
    expect(refused.status()).toBe(401);
  } finally {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
    // The embedded server must not outlive `npm start`: its pid file goes when it stops.
    await expect.poll(() => existsSync(path.join(dataDir, "pg", "postmaster.pid")), { timeout: 20_000 }).toBe(false);
    await rm(dataDir, { recursive: true, force: true });
  }
});
