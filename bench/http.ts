import "dotenv/config";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { verifyDecisionLog } from "@/lib/audit";
import { createApiToken } from "@/lib/auth";
import { closeDb } from "@/lib/db/client";
import { withConnection } from "@/lib/db/connection";
import { migrate } from "@/lib/db/migrate";
import { MAX_BATCH } from "@/lib/reviews";
import { type ProfileWindow, summarizeCpuProfile } from "./cpu-profile";
import { invoiceReport, ms, table, withBenchDatabase } from "./support";

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
/**
 * Only these modes (comma list of single32, single4, batch, floor-next, floor-fast), e.g. to
 * profile one of them with BENCH_CPU_PROFILE; all of them when unset.
 */
const MODES = process.env.BENCH_MODES?.split(",").map((m) => m.trim());
/**
 * Another checkout of the console with its own production build (e.g. a clone of main): after
 * this build's modes, its console is started on a database of its own, migrated with its own
 * migrations, and the single C=32 and batch modes run against it too, so this build's figures
 * are also ratios of one run (records/s, and console + database CPU per record).
 */
const BASELINE_DIR = process.env.BENCH_BASELINE_DIR ? path.resolve(process.env.BENCH_BASELINE_DIR) : undefined;

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
  checkout = root,
): Promise<Console> {
  const port = await freePort();
  const args = [
    ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
    "--import",
    "tsx",
    path.join(checkout, "scripts", "serve.ts"),
    "-H",
    "127.0.0.1",
    "-p",
    String(port),
  ];
  const child = spawn(process.execPath, args, {
    cwd: checkout,
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
  const cpuMs = () => processCpuMs(child.pid!) ?? NaN;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { url: `http://127.0.0.1:${port}`, child, cpuMs, stop };
}

/** User + system CPU time of a process in ms, from /proc; undefined when it is gone (or not on this machine). */
function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of /proc/PID/stat; after "pid (comm) " they are 12 and 13.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ = 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * The CPU time of the database backends serving the console (its connection pool): the
 * backends of the bench database but this one, read from /proc when PostgreSQL runs on this
 * machine. Returns a function that gives the time they used since, or NaN when /proc does not
 * show them (a server elsewhere). Background work (WAL writer, checkpointer, autovacuum) is not
 * included; a backend that exits in between loses its share.
 */
async function backendCpu(client: pg.Client): Promise<() => Promise<number>> {
  const pids = async () =>
    (
      await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      )
    ).rows.map((r) => r.pid);
  const before = new Map((await pids()).map((pid) => [pid, processCpuMs(pid)]));
  if ([...before.values()].some((ms) => ms === undefined)) return async () => NaN;
  return async () => {
    let total = 0;
    for (const pid of await pids()) total += (processCpuMs(pid) ?? 0) - (before.get(pid) ?? 0);
    return total;
  };
}

/** The report of the `n`th request's message (bench/support.ts). */
const report = (n: number) => invoiceReport(n, `msg-http-${n}`);

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
  /** The console process's CPU time over the mode. */
  cpuMs: number;
  /** The CPU time of the database backends serving the console over the mode (NaN: not measurable). */
  dbCpuMs: number;
  /** When it ran, on the clock CPU profiles use. */
  window: ProfileWindow;
}

/**
 * `requests` requests of `recordsPerRequest` new messages each, `connections` at a time.
 * Bodies are made as each request is sent (setupRequest), so every one has fresh message ids.
 */
async function run(
  target: Console,
  db: pg.Client,
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
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const cpuBefore = target.cpuMs();
  const dbCpu = await backendCpu(db);
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
  // The mode's own clock, from the start to the last answer: autocannon notices that it sent
  // everything on its one-second tick, so its `duration` (and the time until it returns) is
  // whole seconds, which made 6,000 requests read as exactly 1,200 or 1,500 records/s.
  const startedAt = process.hrtime.bigint();
  let lastAnswerAt = startedAt;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(settings, (error, done) => (error ? reject(error as Error) : resolve(done)));
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
      lastAnswerAt = process.hrtime.bigint();
    });
  });
  const seconds = Number(lastAnswerAt - startedAt) / 1e9;
  const cpuMs = target.cpuMs() - cpuBefore;
  const dbCpuMs = await dbCpu();
  const toUs = Number(process.hrtime.bigint() / 1000n);
  return {
    mode,
    requests: result.requests.total,
    records: accepted,
    seconds,
    latencies,
    errors: result.errors,
    non2xx: result.non2xx,
    statuses: Object.entries(result.statusCodeStats ?? {})
      .map(([status, { count }]) => `${status}:${count}`)
      .join(" "),
    cpuMs,
    dbCpuMs,
    window: { fromUs, toUs },
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

const WARM_UP: RunOptions[] = [
  { path: "/api/v1/reviews", requests: 500, connections: 8, recordsPerRequest: 1 },
  { path: "/api/v1/reviews/batch", requests: 4, connections: 2, recordsPerRequest: BATCH_SIZE },
];

type RunOptions = Parameters<typeof run>[4];

// The floors: the same request refused (401) before any database work, so its CPU time is what
// the way in costs per request by itself. Without a token it goes through Next (proxy.ts, the
// route, apiRoute); with a malformed bearer token it takes the fast path.
const MODE_LIST: { key: string; mode: string; options: RunOptions }[] = [
  ...[32, 4].map((connections) => ({
    key: `single${connections}`,
    mode: `single C=${connections}`,
    options: { path: "/api/v1/reviews", requests: SINGLE_REQUESTS, connections, recordsPerRequest: 1 },
  })),
  {
    key: "batch",
    mode: `batch ${BATCH_SIZE} C=${BATCH_CONCURRENCY}`,
    options: {
      path: "/api/v1/reviews/batch",
      requests: BATCH_REQUESTS,
      connections: BATCH_CONCURRENCY,
      recordsPerRequest: BATCH_SIZE,
    },
  },
  {
    key: "floor-next",
    mode: "floor: 401 via Next, no database",
    options: {
      path: "/api/v1/reviews",
      requests: SINGLE_REQUESTS,
      connections: 32,
      recordsPerRequest: 1,
      authorization: null,
    },
  },
  {
    key: "floor-fast",
    mode: "floor: 401 fast path, no database",
    options: {
      path: "/api/v1/reviews",
      requests: SINGLE_REQUESTS,
      connections: 32,
      recordsPerRequest: 1,
      authorization: "Bearer malformed token",
    },
  },
];

/** The modes the comparisons repeat: single C=32 and batch. */
const COMPARED = MODE_LIST.filter((m) => m.key === "single32" || m.key === "batch");

/**
 * Starts a console on `url`, warms it up and runs `modes` against it (suffixing their names with
 * `label`), then stops it. The warm-up is returned apart: counted in the checks, not reported.
 */
async function measure(
  url: string,
  token: string,
  modes: typeof MODE_LIST,
  options: { label?: string; profileDir?: string; env?: Record<string, string>; checkout?: string } = {},
): Promise<{ warm: ModeResult[]; results: ModeResult[] }> {
  const target = await startConsole(url, options.profileDir, options.env, options.checkout);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const suffix = options.label ? ` (${options.label})` : "";
  try {
    console.log(
      `console${suffix} on ${target.url} (pid ${target.child.pid})${options.profileDir ? ", with --cpu-prof" : ""}`,
    );
    // Warm-up: route compilation on first use, JIT, the connection pool; counted in the checks below.
    const warm: ModeResult[] = [];
    for (const [i, warmUp] of WARM_UP.entries()) {
      warm.push(await run(target, client, token, `warm-up ${i + 1}${suffix}`, warmUp));
    }
    const results: ModeResult[] = [];
    for (const { mode, options: runOptions } of modes) {
      results.push(await run(target, client, token, `${mode}${suffix}`, runOptions));
    }
    return { warm, results };
  } finally {
    await client.end();
    await target.stop();
  }
}

function printTable(results: ModeResult[]): void {
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
        "DB CPU ms/request",
        "CPU µs/record",
        "statuses",
      ],
      results.map((r) => {
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
          (r.dbCpuMs / Math.max(1, r.requests)).toFixed(2),
          r.records > 0 ? (((r.cpuMs + (r.dbCpuMs || 0)) * 1000) / r.records).toFixed(0) : "",
          r.statuses,
        ];
      }),
    )}`,
  );
}

/** Nothing lost: every accepted record is in the database, with its log entry, and the chain verifies. */
async function check(url: string, runs: ModeResult[]): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const accepted = runs.reduce((sum, r) => sum + r.records, 0);
    const records = await countRows(client, "review_records");
    const logged = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM decision_log WHERE action IN ('review.reported', 'review.reported-again')",
    );
    const entries = Number(logged.rows[0]!.n);
    console.log(
      `records accepted (2xx): ${accepted}, in the database: ${records}, intake log entries: ${entries} ` +
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
    return accepted === records && records === entries && verdict.ok;
  } finally {
    await client.end();
  }
}

const rate = (r: ModeResult | undefined) => (r ? r.records / r.seconds : NaN);
const cpuPerRecord = (r: ModeResult | undefined) => (r ? (r.cpuMs + (r.dbCpuMs || 0)) / r.records : NaN);

/** `fast path / Next route`-style ratios of the compared modes: records/s, and CPU per record. */
function ratios(label: string, ours: ModeResult[], theirs: ModeResult[]): string {
  const find = (list: ModeResult[], prefix: string) => list.find((r) => r.mode.startsWith(prefix));
  const part = (name: string, prefix: string) => {
    const a = find(ours, prefix);
    const b = find(theirs, prefix);
    return `${name} ${(rate(a) / rate(b)).toFixed(2)}x records/s, ${(cpuPerRecord(a) / cpuPerRecord(b)).toFixed(2)}x CPU/record`;
  };
  return `${label}, same run: ${part("single C=32", "single C=32")}; ${part("batch", "batch")}`;
}

async function main() {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    console.error("no production build: run `npm run build` first (the bench serves the current build)");
    process.exit(2);
  }
  if (BASELINE_DIR && !existsSync(path.join(BASELINE_DIR, ".next", "BUILD_ID"))) {
    console.error(`no production build in ${BASELINE_DIR}: run \`npm run build\` there first`);
    process.exit(2);
  }
  await withBenchDatabase("rc_bench_http", async (url) => {
    const token = (await createApiToken("bench-http", "consumer")).token;
    await closeDb();
    const keepProfile = CPU_PROFILE && CPU_PROFILE !== "1" ? path.resolve(CPU_PROFILE) : undefined;
    const profileDir = CPU_PROFILE
      ? (keepProfile ?? mkdtempSync(path.join(os.tmpdir(), "rc-bench-http-prof-")))
      : undefined;
    const mine = await measure(
      url,
      token,
      MODE_LIST.filter((m) => !MODES || MODES.includes(m.key)),
      { profileDir },
    );
    // One console at a time: each is stopped before the next starts, so two never share the CPU.
    const viaNext = COMPARE_NEXT
      ? await measure(url, token, COMPARED, { label: "Next route", env: { INTAKE_FAST_PATH: "off" } })
      : undefined;
    const baseline = BASELINE_DIR ? await measureBaseline(url, BASELINE_DIR) : undefined;

    printTable([...mine.results, ...(viaNext?.results ?? []), ...(baseline?.results ?? [])]);
    console.log("");
    const ok = await check(url, [
      ...mine.warm,
      ...mine.results,
      ...(viaNext ? [...viaNext.warm, ...viaNext.results] : []),
    ]);
    if (!ok || (baseline && !baseline.ok)) process.exitCode = 1;

    if (profileDir) {
      const files = readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"));
      const requests = mine.results.reduce((sum, r) => sum + r.requests, 0);
      for (const file of files) {
        console.log(`\nCPU profile of the console (${file}; the measured modes, without start-up and warm-up):`);
        console.log(
          summarizeCpuProfile(path.join(profileDir, file), {
            requests,
            top: 25,
            windows: mine.results.map((r) => r.window),
          }),
        );
      }
      if (!keepProfile) rmSync(profileDir, { recursive: true, force: true });
    }
    if (viaNext) console.log(`\n${ratios("fast path / Next route", mine.results, viaNext.results)}`);
    if (baseline) console.log(`\n${ratios(`this build / ${BASELINE_DIR}`, mine.results, baseline.results)}`);
    const single = mine.results.find((r) => r.mode === "single C=32");
    const batch = mine.results.find((r) => r.mode.startsWith("batch"));
    const singleP99 = single
      ? percentile(
          [...single.latencies].sort((a, b) => a - b),
          0.99,
        )
      : NaN;
    console.log(
      `\nsingle records/s: ${rate(single).toFixed(0)} p99 ms: ${singleP99.toFixed(0)} ` +
        `batch records/s: ${rate(batch).toFixed(0)}`,
    );
  });
}

/**
 * The compared modes against the console of another checkout, on a database of its own next to
 * `url`'s, migrated with that checkout's migrations and dropped afterwards.
 */
async function measureBaseline(url: string, checkout: string): Promise<{ results: ModeResult[]; ok: boolean }> {
  const own = new URL(url);
  own.pathname = `${own.pathname}_base`;
  const server = new URL(url);
  server.pathname = "/postgres";
  const name = own.pathname.slice(1);
  await withConnection(server.toString(), (c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const previous = process.env.DATABASE_URL;
  try {
    await migrate(
      own.toString(),
      path.join(checkout, "prisma", "migrations"),
      path.join(checkout, "prisma", "functions"),
    );
    process.env.DATABASE_URL = own.toString();
    const token = (await createApiToken("bench-http-baseline", "consumer")).token;
    await closeDb();
    const measured = await measure(own.toString(), token, COMPARED, { label: "baseline", checkout });
    console.log(`\nbaseline ${checkout}:`);
    const ok = await check(own.toString(), [...measured.warm, ...measured.results]);
    return { results: measured.results, ok };
  } finally {
    process.env.DATABASE_URL = previous;
    await closeDb();
    await withConnection(server.toString(), (c) =>
      c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
    );
  }
}

await main();
