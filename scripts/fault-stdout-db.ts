import "dotenv/config";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { sleep } from "@review-console/consumer";
import { migrate } from "@/lib/db/migrate";
import { resolveTestServer } from "@/testing/db/test-server";
import { freePort } from "@/lib/net/local-server";
import { apiToken, type Child, startConsole } from "./fleet";
import { runMain } from "./run-main";

/**
 * The fault test (`npm run test:fault-stdout`, after `npm run build`) for a console that lost
 * both the reader of its stdout and stderr and its database: what an orphaned console left by an
 * interrupted run faces. One console (scripts/serve.ts, as `npm start` runs it) on a fresh
 * database of TEST_PG_SERVER_URL / DATABASE_URL's server (else an embedded one), its stdout and
 * stderr piped here. Once it is up, this test closes its ends of both pipes and drops the database
 * (every connection then fails at once: "database does not exist"), sends it a few requests that
 * fail and log, then measures its CPU (its processes' utime + stime, /proc) for MEASURE_S seconds.
 *
 * What a user expects, and what is checked: the console stays up and idle-cheap (under 5% of a
 * core: its loops back off, and output nobody reads is dropped, lib/stdio-guard.ts), and it still
 * answers: /api/health 503 with Retry-After while the database is gone, so a load balancer takes
 * it out, the API and the sign-in routes 503 too (lib/db/unavailable.ts), and no request goes unanswered. It does not
 * exit: a log reader that died is no reason to stop serving, and the database may come back.
 */

const MEASURE_S = Number(process.env.FAULT_MEASURE_S ?? 30);
// After the failing requests stop, V8's memory reducer runs a few major collections over about
// 20 s (0.2–0.4 s of CPU each, over its threads): a transient that made a 10 s figure swing from
// 1% to 7%, not a spin. The console is left to settle first (health checks go on), then measured.
const SETTLE_S = Number(process.env.FAULT_SETTLE_S ?? 20);
const MAX_CORE_SHARE = 0.05;
const TICKS_PER_SECOND = 100; // USER_HZ, which /proc/<pid>/stat counts in, is 100 on Linux.

/** The process `pid` and every process below it. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = statFields(Number(entry))?.[1];
    if (parent === undefined) continue;
    children.set(Number(parent), [...(children.get(Number(parent)) ?? []), Number(entry)]);
  }
  const tree = [pid];
  // for…of over an array sees what is pushed while it runs: a walk down the tree, level by level.
  for (const p of tree) tree.push(...(children.get(p) ?? []));
  return tree;
}

/** /proc/<pid>/stat's fields after the command name (state is [0], ppid [1], utime [11], stime [12]). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone meanwhile
  }
}

/** CPU ticks used so far by `pid` and the processes below it. */
function cpuTicks(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    const fields = statFields(p);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

/** The share of one core `pid`'s tree used over the next `seconds`, while `during` runs. */
async function coreShare(pid: number, seconds: number, during: () => Promise<void>): Promise<number> {
  const before = cpuTicks(pid);
  const started = Date.now();
  await Promise.all([sleep(seconds * 1000), during()]);
  return (cpuTicks(pid) - before) / TICKS_PER_SECOND / ((Date.now() - started) / 1000);
}

async function main(): Promise<number> {
  if (process.platform !== "linux") {
    console.error("fault test: it reads /proc, so it runs on Linux only");
    return 1;
  }
  const server = await resolveTestServer();
  const name = `rc_fault_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server.serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(server.serverUrl);
  dbUrl.pathname = `/${name}`;
  const databaseUrl = dbUrl.toString();
  let console_: Child | undefined;
  try {
    await migrate(databaseUrl);
    process.env.DATABASE_URL = databaseUrl; // apiToken writes through db()
    const token = await apiToken("support", `fault-${name}`);
    const { closeDb } = await import("@/lib/db/client");
    await closeDb();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    console_ = await startConsole("console", port, {
      DATABASE_URL: databaseUrl,
      BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
      NEXT_TELEMETRY_DISABLED: "1",
    });
    const pid = console_.process.pid!;
    console.log(`fault test: console pid ${pid} on ${base}, database ${name}`);

    const statuses = new Map<string, number>();
    const unanswered: string[] = [];
    const request = async (what: string, path: string, init: RequestInit = {}) => {
      try {
        const response = await fetch(base + path, { ...init, signal: AbortSignal.timeout(3_000) });
        await response.arrayBuffer();
        const key = `${what} ${response.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        return response;
      } catch (error) {
        unanswered.push(`${what}: ${(error as Error).message}`);
        return undefined;
      }
    };
    // What a client and a browser send; with the database gone each fails, and logs it.
    const traffic = async (seconds: number) => {
      const until = Date.now() + seconds * 1000;
      const requests: [string, string, RequestInit?][] = [
        ["health", "/api/health"],
        ["list", "/api/v1/reviews?limit=5", { headers: { authorization: `Bearer ${token}` } }],
        ["page", "/reviews"],
        // What a signed-in browser's page polls: Better Auth's own route, whose failure Next logs.
        ["session", "/api/auth/get-session"],
      ];
      while (Date.now() < until) {
        for (const [what, path, init] of requests) if (Date.now() < until) await request(what, path, init);
        await sleep(1000);
      }
    };

    const calm = await coreShare(pid, 5, () => traffic(3));
    console.log(`  before the fault: ${(calm * 100).toFixed(1)}% of a core (5 s, a few requests)`);

    console_.process.stdout?.destroy();
    console_.process.stderr?.destroy();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    console.log("  stdout and stderr closed, database dropped");
    // Requests that fail and log (Next logs the failed session lookup to stderr), and the
    // dispatcher's and notifier's failing rounds (to stdout); then the console is left alone,
    // bar a load balancer's health check every 2 s, while its CPU is measured.
    await traffic(3);
    const timeline: number[] = [];
    const healthChecks = (seconds: number) => async () => {
      for (let at = 0; at < seconds; at += 2) {
        const t0 = cpuTicks(pid);
        await Promise.all([request("health", "/api/health"), sleep(2000)]);
        timeline.push(cpuTicks(pid) - t0);
      }
    };
    const settling = await coreShare(pid, SETTLE_S, healthChecks(SETTLE_S));
    console.log(`  settling: ${(settling * 100).toFixed(1)}% of a core (${SETTLE_S} s)`);
    const faulted = await coreShare(pid, MEASURE_S, healthChecks(MEASURE_S));
    console.log(`  CPU ticks (1/100 s) per 2 s, settling then measured: ${timeline.join(" ")}`);
    // It still answers everything, as it did before the measurement.
    await traffic(1);
    const health = await request("health", "/api/health");
    const alive = console_.process.exitCode === null && console_.process.signalCode === null;
    console.log(`  during the fault: ${(faulted * 100).toFixed(1)}% of a core (${MEASURE_S} s)`);
    console.log(`  answers: ${[...statuses].map(([k, n]) => `${k} ×${n}`).join(", ")}`);

    const failures: string[] = [];
    if (faulted >= MAX_CORE_SHARE)
      failures.push(`it used ${(faulted * 100).toFixed(1)}% of a core, more than ${MAX_CORE_SHARE * 100}%`);
    if (!alive) failures.push(`it exited (${console_.process.exitCode ?? console_.process.signalCode})`);
    if (health?.status !== 503 || !health.headers.get("retry-after"))
      failures.push(`/api/health answered ${health?.status ?? "nothing"}, not 503 with Retry-After`);
    // The answer for a database that is gone is a 503 a client retries (lib/db/unavailable.ts),
    // from the API and from Better Auth's routes alike (lib/http/auth-endpoint.ts).
    const serverErrors = [...statuses.keys()].filter((k) => / 5\d\d$/.test(k) && !k.endsWith(" 503"));
    if (serverErrors.length) failures.push(`it answered ${serverErrors.join(", ")} (not 503)`);
    if (unanswered.length) failures.push(`requests went unanswered: ${unanswered.slice(0, 3).join("; ")}`);
    for (const failure of failures) console.error(`FAIL: ${failure}`);
    console.log(
      `fault stdout+db: cpu during fault ${(faulted * 100).toFixed(1)}% (limit ${MAX_CORE_SHARE * 100}%), ` +
        (failures.length ? "FAILED" : "ok"),
    );
    return failures.length ? 1 : 0;
  } finally {
    console_?.process.kill("SIGKILL");
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
    await server.stop();
  }
}

runMain(main);
