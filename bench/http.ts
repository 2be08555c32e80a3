import "dotenv/config";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { verifyDecisionLog } from "@/lib/audit/verify";
import { createApiToken } from "@/lib/auth/tokens";
import { closeDb } from "@/lib/db/client";
import { MAX_BATCH } from "@/lib/reviews/schema";
import { summarizeCpuProfile } from "./cpu-profile";
import { ms, table, withBenchDatabase } from "./support";

/*
 * HTTP intake against a started production console (the current `next build`, served by
 * scripts/serve.ts as `npm start` does) on 127.0.0.1, driven by autocannon over real sockets:
 *
 *   single C=32 / C=4   POST /api/v1/reviews, one new message per request
 *   batch               POST /api/v1/reviews/batch, BATCH_SIZE new messages per request
 *
 * Every request carries a message id never sent before, so every 2xx answer is a new record.
 * Afterwards the records in the database must equal the records the answers accepted (nothing
 * lost, nothing extra), there must be one decision-log entry per record, and the hash chain must
 * verify. The console's CPU time per request comes from /proc (its user + system time over the
 * mode), less noisy on a shared machine than the throughput.
 */

const SINGLE_REQUESTS = Number(process.env.BENCH_SINGLE_REQUESTS ?? 6000);
const BATCH_REQUESTS = Number(process.env.BENCH_BATCH_REQUESTS ?? 60);
const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 4);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? MAX_BATCH);
/**
 * `1`: the console runs with `node --cpu-prof` and its profile is summarised at the end; a
 * directory instead of `1`: the same, and the .cpuprofile files are kept there.
 */
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;
/**
 * `1`: the same single C=32 and batch modes run a second time against a console with the intake
 * fast path switched off (INTAKE_FAST_PATH=off: every request through Next's route), on the same
 * database and machine, so the fast path's gain is a ratio of one run (docs/decisions/0025-intake-fast-path.md).
 */
const COMPARE_NEXT = process.env.BENCH_COMPARE_NEXT === "1";

const root = path.resolve(import.meta.dirname, "..");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

interface Console {
  url: string;
  child: ChildProcess;
  /** User + system CPU time of the console process so far, in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

async function startConsole(
  databaseUrl: string,
  profileDir: string | undefined,
  env: Record<string, string> = {},
): Promise<Console> {
  const port = await freePort();
  const args = [
    ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
    "--import",
    "tsx",
    path.join(root, "scripts", "serve.ts"),
    "-H",
    "127.0.0.1",
    "-p",
    String(port),
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1", LOG_LEVEL: "warn", ...env },
  });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready on")) resolve();
      // What the console says while it serves: shown, but only its start (a flood would skew the run).
      if (output.length < 20_000) process.stdout.write(`console: ${chunk.toString()}`);
    });
    child.once("exit", (code) => reject(new Error(`the console exited (${code}) before it was ready:\n${output}`)));
  });
  const ticks = 100; // USER_HZ on Linux
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of /proc/PID/stat; after "pid (comm) " they are 12 and 13.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { url: `http://127.0.0.1:${port}`, child, cpuMs, stop };
}

/** A realistic report: the three categories in turn, keys that name the business object. */
function report(n: number) {
  const sequenceKey = `invoice-${n}`;
  const sequence = 2 + (n % 5);
  return {
    category: n % 2 === 0 ? "sequence-gap" : "effect-result-unknown",
    reason: n % 2 === 0 ? "sequence-gap" : "effect-result-unknown",
    requiredCheck: `find message ${sequence - 1} of ${sequenceKey}`,
    attempts: 1 + (n % 3),
    ...(n % 2 === 0 ? {} : { lastError: "provider timeout after 30000 ms; the request was sent" }),
    source: { transport: "redis-streams", queue: "invoices", consumer: `worker-${n % 4}`, transportId: `${n}-0` },
    message: {
      id: `msg-http-${n}`,
      kind: "invoice.reminder",
      effectKey: `${sequenceKey}:reminder-${sequence}`,
      sequenceKey,
      sequence,
      payload: { schema: "2021-03", invoiceId: String(n) },
    },
  };
}

let serial = 0;

interface ModeResult {
  mode: string;
  requests: number;
  records: number;
  seconds: number;
  latencies: number[];
  errors: number;
  non2xx: number;
  statuses: string;
  cpuMs: number;
}

/**
 * `requests` requests of `recordsPerRequest` new messages each, `connections` at a time.
 * Bodies are made as each request is sent (setupRequest), so every one has fresh message ids.
 */
async function run(
  target: Console,
  token: string,
  mode: string,
  options: {
    path: string;
    requests: number;
    connections: number;
    recordsPerRequest: number;
    /** Sent instead of the token (none at all when null). */
    authorization?: string | null;
  },
): Promise<ModeResult> {
  const latencies: number[] = [];
  let accepted = 0;
  const cpuBefore = target.cpuMs();
  const settings: autocannon.Options = {
    url: `${target.url}${options.path}`,
    connections: options.connections,
    amount: options.requests,
    timeout: 60,
    headers:
      options.authorization === null
        ? { "content-type": "application/json" }
        : { authorization: options.authorization ?? `Bearer ${token}`, "content-type": "application/json" },
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          const body =
            options.recordsPerRequest === 1
              ? JSON.stringify(report(++serial))
              : JSON.stringify({ records: Array.from({ length: options.recordsPerRequest }, () => report(++serial)) });
          return { ...request, body };
        },
        onResponse: (status, body) => {
          if (status < 200 || status > 299) return;
          accepted += options.recordsPerRequest === 1 ? 1 : ((JSON.parse(body) as { recorded?: number }).recorded ?? 0);
        },
      },
    ],
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(settings, (error, done) => (error ? reject(error as Error) : resolve(done)));
    instance.on("response", (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
  const cpuMs = target.cpuMs() - cpuBefore;
  return {
    mode,
    requests: result.requests.total,
    records: accepted,
    seconds: result.duration,
    latencies,
    errors: result.errors,
    non2xx: result.non2xx,
    statuses: Object.entries(result.statusCodeStats ?? {})
      .map(([status, { count }]) => `${status}:${count}`)
      .join(" "),
    cpuMs,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

async function countRows(client: pg.Client, table: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

async function main() {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    console.error("no production build: run `npm run build` first (the bench serves the current build)");
    process.exit(2);
  }
  await withBenchDatabase("rc_bench_http", async (url) => {
    const token = (await createApiToken("bench-http", "consumer")).token;
    await closeDb();
    const keepProfile = CPU_PROFILE && CPU_PROFILE !== "1" ? path.resolve(CPU_PROFILE) : undefined;
    const profileDir = CPU_PROFILE
      ? (keepProfile ?? mkdtempSync(path.join(os.tmpdir(), "rc-bench-http-prof-")))
      : undefined;
    const target = await startConsole(url, profileDir);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const results: ModeResult[] = [];
    /** The Next-route modes of BENCH_COMPARE_NEXT=1 (their warm-up first). */
    const comparison: ModeResult[] = [];
    try {
      console.log(`console on ${target.url} (pid ${target.child.pid})${profileDir ? ", with --cpu-prof" : ""}`);
      // Warm-up: route compilation on first use, JIT, the connection pool; counted in the checks below.
      const warm = await run(target, token, "warm-up", {
        path: "/api/v1/reviews",
        requests: 500,
        connections: 8,
        recordsPerRequest: 1,
      });
      const warmBatch = await run(target, token, "warm-up batch", {
        path: "/api/v1/reviews/batch",
        requests: 4,
        connections: 2,
        recordsPerRequest: BATCH_SIZE,
      });
      for (const connections of [32, 4]) {
        results.push(
          await run(target, token, `single C=${connections}`, {
            path: "/api/v1/reviews",
            requests: SINGLE_REQUESTS,
            connections,
            recordsPerRequest: 1,
          }),
        );
      }
      results.push(
        await run(target, token, `batch ${BATCH_SIZE} C=${BATCH_CONCURRENCY}`, {
          path: "/api/v1/reviews/batch",
          requests: BATCH_REQUESTS,
          connections: BATCH_CONCURRENCY,
          recordsPerRequest: BATCH_SIZE,
        }),
      );
      // The floors: the same request refused (401) before any database work, so its CPU time is
      // what the way in costs per request by itself. Without a token it goes through Next
      // (proxy.ts, the route, apiRoute); with a malformed bearer token it takes the fast path.
      results.push(
        await run(target, token, "floor: 401 via Next, no database", {
          path: "/api/v1/reviews",
          requests: SINGLE_REQUESTS,
          connections: 32,
          recordsPerRequest: 1,
          authorization: null,
        }),
      );
      results.push(
        await run(target, token, "floor: 401 fast path, no database", {
          path: "/api/v1/reviews",
          requests: SINGLE_REQUESTS,
          connections: 32,
          recordsPerRequest: 1,
          authorization: "Bearer malformed token",
        }),
      );
      if (COMPARE_NEXT) {
        // One console at a time: the fast path's is stopped first, so the two never share the CPU.
        await target.stop();
        const viaNext = await startConsole(url, undefined, { INTAKE_FAST_PATH: "off" });
        try {
          console.log(`console with INTAKE_FAST_PATH=off on ${viaNext.url} (pid ${viaNext.child.pid})`);
          await run(viaNext, token, "warm-up (Next route)", {
            path: "/api/v1/reviews",
            requests: 500,
            connections: 8,
            recordsPerRequest: 1,
          }).then((r) => comparison.push(r));
          comparison.push(
            await run(viaNext, token, "single C=32 (Next route)", {
              path: "/api/v1/reviews",
              requests: SINGLE_REQUESTS,
              connections: 32,
              recordsPerRequest: 1,
            }),
          );
          comparison.push(
            await run(viaNext, token, `batch ${BATCH_SIZE} C=${BATCH_CONCURRENCY} (Next route)`, {
              path: "/api/v1/reviews/batch",
              requests: BATCH_REQUESTS,
              connections: BATCH_CONCURRENCY,
              recordsPerRequest: BATCH_SIZE,
            }),
          );
        } finally {
          await viaNext.stop();
        }
      }

      console.log(
        `\n${table(
          [
            "mode",
            "requests",
            "records/s",
            "p50 ms",
            "p95 ms",
            "p99 ms",
            "errors",
            "non-2xx",
            "CPU ms/request",
            "statuses",
          ],
          [...results, ...comparison.slice(1)].map((r) => {
            const sorted = [...r.latencies].sort((a, b) => a - b);
            return [
              r.mode,
              String(r.requests),
              (r.records / r.seconds).toFixed(0),
              ms(percentile(sorted, 0.5)),
              ms(percentile(sorted, 0.95)),
              ms(percentile(sorted, 0.99)),
              String(r.errors),
              String(r.non2xx),
              (r.cpuMs / Math.max(1, r.requests)).toFixed(2),
              r.statuses,
            ];
          }),
        )}`,
      );

      // Nothing lost: every accepted record is in the database, and nothing else is.
      const accepted = [warm, warmBatch, ...results, ...comparison].reduce((sum, r) => sum + r.records, 0);
      const records = await countRows(client, "review_records");
      const logged = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM decision_log WHERE action IN ('review.reported', 'review.reported-again')",
      );
      const entries = Number(logged.rows[0]!.n);
      console.log(
        `\nrecords accepted (2xx): ${accepted}, in the database: ${records}, intake log entries: ${entries} ` +
          (accepted === records && records === entries ? "(equal)" : "(MISMATCH)"),
      );
      // How many transactions wrote them: fewer than records when single-record requests shared statements.
      const transactions = await client.query<{ n: string }>(
        "SELECT count(DISTINCT xmin::text) AS n FROM decision_log WHERE action IN ('review.reported', 'review.reported-again')",
      );
      console.log(`transactions that wrote them: ${transactions.rows[0]!.n}`);
      const verdict = await verifyDecisionLog(url);
      console.log(
        `decision log chain: ${verdict.ok ? `verified, ${verdict.entries} entries` : `BROKEN at ${verdict.brokenSeq}: ${verdict.problem}`}`,
      );
      if (accepted !== records || records !== entries || !verdict.ok) process.exitCode = 1;
    } finally {
      await client.end();
      await target.stop();
    }
    if (profileDir) {
      const files = readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"));
      const requests = results.reduce((sum, r) => sum + r.requests, 0);
      for (const file of files) {
        console.log(`\nCPU profile of the console (${file}; covers start-up, warm-up and all modes):`);
        console.log(summarizeCpuProfile(path.join(profileDir, file), { requests, top: 25 }));
      }
      if (!keepProfile) rmSync(profileDir, { recursive: true, force: true });
    }
    const single = results.find((r) => r.mode === "single C=32")!;
    const batch = results.find((r) => r.mode.startsWith("batch"))!;
    const singleP99 = percentile(
      [...single.latencies].sort((a, b) => a - b),
      0.99,
    );
    if (comparison.length === 3) {
      const rate = (r: ModeResult) => r.records / r.seconds;
      console.log(
        `\nfast path / Next route, same run: single C=32 ${(rate(single) / rate(comparison[1]!)).toFixed(2)}x, ` +
          `batch ${(rate(batch) / rate(comparison[2]!)).toFixed(2)}x`,
      );
    }
    console.log(
      `\nsingle records/s: ${(single.records / single.seconds).toFixed(0)} p99 ms: ${singleP99.toFixed(0)} ` +
        `batch records/s: ${(batch.records / batch.seconds).toFixed(0)}`,
    );
  });
}

await main();
