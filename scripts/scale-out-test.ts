import "dotenv/config";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { sleep } from "@review-console/consumer";
import { migrate } from "@/lib/db/migrate";
import { ensureRuntimeRole, withCredentials } from "@/lib/db/roles";
import { resolveTestServer } from "@/testing/db/test-server";
import { freePort } from "@/lib/net/local-server";
import { brokerFor } from "@/testing/worker/brokers";
import { FakeEmailProvider } from "@/testing/worker/demo/fake-email-provider";
import { reminder } from "@/testing/worker/harness";
import {
  ApiClient,
  ApiTally,
  apiToken,
  type Child,
  line,
  loadAverage,
  startConsole,
  startWorker,
  stopChild,
} from "./fleet";
import { type CpuHog, oneMinuteLoad, startCpuHog } from "./cpu-hog";
import { runMain } from "./run-main";

/*
 * `npm run test:scale-out`: several consoles and several workers on one PostgreSQL, the way a
 * bigger installation runs (needs `npm run build` first, and Redis on REDIS_URL).
 *
 *   - three console processes (scripts/serve.ts, the production server; each runs the
 *     bulk-operations dispatcher, as instrumentation.ts starts it) on three ports;
 *   - four worker processes (scripts/fleet-worker.ts: the consumer package on a Redis stream,
 *     one email per reminder through the fake provider, claiming the console's replays);
 *   - one PostgreSQL: a fresh database on TEST_PG_SERVER_URL / DATABASE_URL's server, else embedded.
 *
 * A bulk replay of SCALE_RECORDS (20,000) held records (4,000 keys x sequences 3..7, each key's
 * last applied sequence 2, so every replay applies) runs at SCALE_RATE (200/s: 100 s of dispatch)
 * while the workers also take live traffic from the stream and people act through the API (new
 * records reported, notes, lists, the operation's progress) against the three consoles in turn.
 * Mid-way one console and then one worker are killed with SIGKILL. Once every record is dispatched,
 * the replays run for SCALE_OUTCOME_WAIT_S (45) more seconds and the rest stay scheduled (the
 * workers run replays one at a time per process; all 20,000 outcomes would take CI minutes). It
 * passes only when
 *   - every record was dispatched exactly once (one replay and one `review.replay` entry each,
 *     nothing skipped or left pending) and each key's records in ascending sequence;
 *   - the achieved dispatch rate is within 10% of the set rate;
 *   - no replay was claimed twice, except those the killed worker held, taken over only after
 *     their claim ran out; no effect was created twice and per key in increasing sequence;
 *   - every live message is applied or on record; no API answer was a 500;
 *   - `review-console audit verify` passes on the decision log.
 *
 * Under load: SCALE_OUT_CPU_HOG=N starts N busy-loop processes (scripts/cpu-hog.ts) before the
 * database is made and kills them at the end, also on failure. The 1-minute load average
 * (/proc/loadavg) is printed before they start, before the workers start and at the end; the run
 * then also fails unless that last figure is above SCALE_OUT_MIN_LOAD (12): a run meant to show
 * the claims holding on a loaded machine proves nothing if the machine was not loaded. On 2 cores
 * `SCALE_OUT_CPU_HOG=16` keeps the load above 12 (docs/scaling.md). Not part of CI.
 */

const RECORDS = Number(process.env.SCALE_RECORDS ?? 20_000);
const RATE = Number(process.env.SCALE_RATE ?? 200);
const PER_KEY = 5;
const KEYS = Math.ceil(RECORDS / PER_KEY);
const CONSOLES = 3;
const WORKERS = 4;
/** Live traffic: this many keys x LIVE_SEQUENCES messages, spread over the dispatch. */
const LIVE_KEYS = Number(process.env.SCALE_LIVE_KEYS ?? 300);
const LIVE_SEQUENCES = 4;
const RATE_TOLERANCE = 0.1;
const DEADLINE_MS = Number(process.env.SCALE_DEADLINE_MS ?? 420_000);
/** Kill a console, then a worker, once this share of the records was dispatched. */
const KILL_CONSOLE_AT = 0.35;
const KILL_WORKER_AT = 0.5;
const REPLAY_LEASE_S = 30;
/** How long replays run after the last dispatch before the checks (SCALE_OUTCOME_WAIT_S; all when the operation completes first). */
const OUTCOME_WAIT_S = Number(process.env.SCALE_OUTCOME_WAIT_S ?? 45);
const GROUP = "scale-workers";
/** Busy-loop processes for the run's length (0: none), and the 1-minute load it must then end above. */
const CPU_HOG = Number(process.env.SCALE_OUT_CPU_HOG ?? 0);
const MIN_LOAD = Number(process.env.SCALE_OUT_MIN_LOAD ?? 12);
const ROOT = path.resolve(import.meta.dirname, "..");

/** The held records: key k has sequences 3..7 open as sequence-gap, last applied 2. $1 keys, $2 per key, $3 tag. */
const SEED_SQL = `
WITH keyed AS (
  SELECT g, (g - 1) / $2 AS k, 3 + (g - 1) % $2 AS sequence FROM generate_series(1, $1::bigint * $2) AS g
), shaped AS (
  SELECT g, k, sequence, $3 || '-' || k AS sequence_key, 'msg-' || $3 || '-' || k || '-' || sequence AS message_id,
         now() - ($1::bigint * $2 - g) * interval '10 milliseconds' AS seen
    FROM keyed
)
INSERT INTO review_records (status, category, reason, required_check, attempts, report_count, message, message_key,
    message_id, kind, effect_key, sequence_key, sequence, payload_schema, source, version, first_seen_at,
    last_seen_at, updated_at)
SELECT 'open', 'sequence-gap', 'sequence-gap', 'find messages 1–' || (sequence - 1) || ' of ' || sequence_key, 1, 1,
       json_build_object('id', message_id, 'kind', 'invoice.reminder', 'effectKey', sequence_key || ':reminder-' || sequence,
         'sequenceKey', sequence_key, 'sequence', sequence,
         'payload', json_build_object('schema', '2021-03', 'invoiceId', sequence_key)),
       'id:' || message_id, message_id, 'invoice.reminder', sequence_key || ':reminder-' || sequence, sequence_key,
       sequence, '2021-03',
       jsonb_build_object('transport', 'redis-streams', 'queue', 'invoices', 'consumer', 'worker-0', 'transportId', g || '-0'),
       1, seen, seen, seen
  FROM shaped ORDER BY g`;

const STATE_SQL = `INSERT INTO sequence_state (sequence_key, last_sequence)
  SELECT $2 || '-' || k, 2 FROM generate_series(0, $1::int - 1) AS k`;

interface OperationView {
  id: string;
  state: string;
  version: number;
  total: number;
  dryRun: { at: string; counts: Record<string, number> } | null;
  progress: { dispatched: number; outcomes: number; byState: Record<string, number> };
}

async function main(): Promise<number> {
  if (!(Number.isSafeInteger(CPU_HOG) && CPU_HOG >= 0))
    throw new Error(`SCALE_OUT_CPU_HOG must be a whole number >= 0, got ${process.env.SCALE_OUT_CPU_HOG}`);
  if (CPU_HOG === 0) return run(null);
  console.log(`CPU hog: 1-minute load ${oneMinuteLoad().toFixed(2)} before ${CPU_HOG} busy-loop processes start`);
  const hog = startCpuHog(CPU_HOG);
  try {
    const verdict = await run(hog);
    const load = oneMinuteLoad();
    console.log(`CPU hog: 1-minute load ${load.toFixed(2)} at the end (${CPU_HOG} busy-loop processes)`);
    if (load <= MIN_LOAD) {
      console.log(
        `FAILED: the load was ${load.toFixed(2)} at the end, not above ${MIN_LOAD}: this run does not show the test under load`,
      );
      return 1;
    }
    return verdict;
  } finally {
    hog.stop();
  }
}

async function run(hog: CpuHog | null): Promise<number> {
  const started = Date.now();
  const phase = (text: string) => console.log(`  [${((Date.now() - started) / 1000).toFixed(1)} s] ${text}`);
  const broker = brokerFor("redis");
  if (!(await broker.reachable())) {
    console.error(`scale-out test: Redis is not reachable at ${broker.url()}; start it and run again`);
    return 1;
  }
  const server = await resolveTestServer();
  const name = `rc_scale_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server.serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(server.serverUrl);
  dbUrl.pathname = `/${name}`;
  const databaseUrl = dbUrl.toString();
  await migrate(databaseUrl);
  const runtimeRole = `rc_scale_app_${randomBytes(4).toString("hex")}`;
  const runtimePassword = randomBytes(18).toString("base64url");
  await ensureRuntimeRole(databaseUrl, { name: runtimeRole, password: runtimePassword });
  const runtimeUrl = withCredentials(databaseUrl, runtimeRole, runtimePassword);
  // This process issues the tokens (lib/auth/tokens through db()) and reads as the owner.
  process.env.DATABASE_URL = databaseUrl;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const provider = new FakeEmailProvider();
  await provider.start();
  const stream = `rc-scale-${randomBytes(4).toString("hex")}`;
  const queue = await broker.open(stream, { subject: "reminders", group: { name: GROUP } });
  const tag = `scale${randomBytes(3).toString("hex")}`;

  const consoles: Child[] = [];
  const workers: Child[] = [];
  const outcomes = new Map<string, number>();
  let stopTraffic = false;
  let verdict = 1;
  try {
    console.log(
      `scale-out test: ${CONSOLES} consoles, ${WORKERS} workers, one PostgreSQL (${name}); a bulk replay of ` +
        `${RECORDS.toLocaleString("en")} records at ${RATE}/s; load average ${loadAverage()}`,
    );
    await db.query("SET synchronous_commit = off");
    await db.query(SEED_SQL, [KEYS, PER_KEY, tag]);
    await db.query(STATE_SQL, [KEYS, tag]);
    await db.query("ANALYZE");
    phase(`seeded ${(KEYS * PER_KEY).toLocaleString("en")} held records over ${KEYS} keys`);

    const owner = await apiToken("owner", `scale-owner-${tag}`);
    const reporter = await apiToken("consumer", `scale-reporter-${tag}`);
    const secret = randomBytes(32).toString("base64url");
    const ports = await Promise.all(Array.from({ length: CONSOLES }, () => freePort()));
    consoles.push(
      ...(await Promise.all(
        ports.map((port, i) =>
          startConsole(`console-${i + 1}`, port, {
            DATABASE_URL: runtimeUrl,
            BETTER_AUTH_SECRET: secret,
            DB_POOL_SIZE: "8",
            OPERATIONS_TICK_MS: "100",
          }),
        ),
      )),
    );
    phase(`consoles up on ports ${ports.join(", ")}`);
    const tally = new ApiTally();
    const api = new ApiClient(
      ports.map((p) => `http://127.0.0.1:${p}`),
      tally,
    );

    const onLine = (text: string) => {
      if (!text.startsWith("OUTCOME ")) return;
      const { via, type, reason } = JSON.parse(text.slice(8)) as { via: string; type: string; reason: string };
      const key = `${via === "replay" ? "replay" : "live"} ${type}${reason ? `: ${reason}` : ""}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    };
    if (hog) console.log(`CPU hog: 1-minute load ${oneMinuteLoad().toFixed(2)} before the workers start`);
    for (let i = 0; i < WORKERS; i++) {
      workers.push(
        startWorker(
          `scale-worker-${i + 1}`,
          {
            DATABASE_URL: runtimeUrl,
            FLEET_STREAM: stream,
            FLEET_GROUP: GROUP,
            FLEET_PROVIDER_URL: provider.url,
            FLEET_REPLAY_LEASE_S: String(REPLAY_LEASE_S),
            FLEET_REPLAY_LIMIT: "10",
          },
          onLine,
        ),
      );
    }

    // The operation, through the API of one console after another, as an owner would.
    const created = await api.request("POST", "/api/v1/operations", owner, {
      action: "replay",
      reason: "scale-out test: replay the incident's held records",
      selection: { type: "filter", filter: { reason: "sequence-gap", kind: "invoice.reminder" } },
      ratePerSecond: RATE,
      autoPause: null,
    });
    if (created.status !== 201)
      throw new Error(`creating the operation: ${created.status} ${JSON.stringify(created.body)}`);
    const opId = (created.body as OperationView).id;
    const dry = await api.request("POST", `/api/v1/operations/${opId}/dry-run`, owner, {});
    const dried = dry.body as OperationView;
    if (dry.status !== 200 || dried.dryRun?.counts["would-apply"] !== RECORDS)
      throw new Error(`dry run: ${dry.status} ${JSON.stringify(dried.dryRun)}`);
    const confirmed = await api.request("POST", `/api/v1/operations/${opId}/confirm`, owner, {
      expectedVersion: dried.version,
      dryRunAt: dried.dryRun.at,
      checkDone: true,
    });
    if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    phase(`operation ${opId} confirmed: ${RECORDS.toLocaleString("en")} records, all would-apply`);

    // Live traffic on the stream, spread over the dispatch's expected length.
    const live = Array.from({ length: LIVE_KEYS }, (_, k) =>
      Array.from({ length: LIVE_SEQUENCES }, (_, s) => reminder(`${tag}-live-${k}`, s + 1)),
    );
    const liveOrder: Record<string, unknown>[] = [];
    for (let s = 0; s < LIVE_SEQUENCES; s++) for (const key of live) liveOrder.push(key[s]!);
    const expectedSeconds = RECORDS / RATE;
    const publishing = queue.publishAll(liveOrder, {
      pauseMs: Math.floor(((expectedSeconds * 0.8) / (liveOrder.length / 100)) * 1000),
    });

    // People at work on other records: report, note, list, watch the operation.
    const people = (async () => {
      let n = 0;
      while (!stopTraffic) {
        n++;
        const key = `${tag}-person-${n}`;
        const report = await api.request("POST", "/api/v1/reviews", reporter, {
          category: "manual-review",
          reason: "retry-limit",
          requiredCheck: "ask the provider whether the reminder went out",
          attempts: 3,
          source: { transport: "redis-streams", queue: "invoices", consumer: "someone", transportId: `${n}-0` },
          message: reminder(key, 1),
        });
        if (report.status === 201) {
          const id = (report.body as { id: string }).id;
          await api.request("POST", `/api/v1/reviews/${id}/actions`, owner, {
            action: "note",
            expectedVersion: 1,
            reason: "checked with the provider: nothing went out",
          });
        }
        await api.request("GET", "/api/v1/reviews?status=open&limit=20", owner);
        await api.request("GET", `/api/v1/operations/${opId}`, owner);
        await sleep(150);
      }
    })();

    let dispatchedAt: number | undefined;
    let consoleKilled: string | null = null;
    let workerKilled: string | null = null;
    const samples: { at: number; dispatched: number }[] = [];
    for (;;) {
      if (Date.now() - started > DEADLINE_MS) throw new Error(`not finished within ${DEADLINE_MS / 1000} s`);
      const { rows } = await db.query<{ dispatched: number; state: string; at: number }>(
        `SELECT dispatched, state::text, extract(epoch FROM clock_timestamp())::float8 AS at FROM bulk_operations WHERE id = $1`,
        [opId],
      );
      const op = rows[0]!;
      samples.push({ at: op.at, dispatched: op.dispatched });
      if (!consoleKilled && op.dispatched >= RECORDS * KILL_CONSOLE_AT) {
        consoles[0]!.process.kill("SIGKILL");
        consoleKilled = consoles[0]!.name;
        phase(`${op.dispatched} dispatched: SIGKILL to ${consoleKilled} (its dispatcher and API gone)`);
      }
      if (!workerKilled && op.dispatched >= RECORDS * KILL_WORKER_AT) {
        workers[0]!.process.kill("SIGKILL");
        workerKilled = workers[0]!.name;
        phase(
          `${op.dispatched} dispatched: SIGKILL to ${workerKilled} (its replay claims run out after ${REPLAY_LEASE_S} s)`,
        );
      }
      if (op.state === "completed") {
        phase(`the operation completed: every replay has its outcome`);
        break;
      }
      if (op.state !== "running") throw new Error(`the operation is ${op.state}`);
      if (op.dispatched >= RECORDS) {
        // Dispatch is what this test measures; the workers run replays one at a time per process
        // (about 20-25/s each here), so waiting for all 20,000 outcomes would cost CI minutes.
        dispatchedAt ??= Date.now();
        if (Date.now() - dispatchedAt >= OUTCOME_WAIT_S * 1000) {
          phase(`every record dispatched; ${OUTCOME_WAIT_S} s of replay outcomes after that, the rest stay scheduled`);
          break;
        }
      }
      await sleep(1000);
    }
    await publishing;
    // The live traffic drains: nothing left with the broker, and no outcome for a moment.
    for (;;) {
      if (Date.now() - started > DEADLINE_MS)
        throw new Error(`live traffic not drained within ${DEADLINE_MS / 1000} s`);
      if (await queue.drained()) break;
      await sleep(500);
    }
    phase("live traffic drained");
    stopTraffic = true;
    await people;
    await Promise.all([...consoles, ...workers].map((c) => stopChild(c)));
    verdict = await verify({
      db,
      opId,
      provider,
      tally,
      outcomes,
      liveIds: liveOrder.map((e) => String(e.id)),
      killedWorker: workerKilled!,
      databaseUrl,
      started,
      samples,
    });
  } catch (error) {
    console.error(`scale-out test failed: ${error instanceof Error ? error.message : String(error)}`);
    for (const child of [...consoles, ...workers]) {
      if (child.process.exitCode === null && child.process.signalCode === null) continue;
      if (child.process.signalCode === "SIGKILL") continue;
      console.error(`--- ${child.name} exited (${child.process.exitCode}):\n${child.output().slice(-2000)}`);
    }
    verdict = 1;
  } finally {
    stopTraffic = true;
    for (const child of [...consoles, ...workers]) child.process.kill("SIGKILL");
    await provider.stop();
    await queue.remove().catch(() => {});
    await queue.close().catch(() => {});
    await db.end().catch(() => {});
    const { closeDb } = await import("@/lib/db/client");
    await closeDb();
    if (!process.env.SCALE_KEEP_DATABASE) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(runtimeRole)}`).catch(() => {});
    } else console.log(`database kept: ${databaseUrl}`);
    await admin.end();
    await server.stop();
  }
  return verdict;
}

interface Evidence {
  db: pg.Client;
  opId: string;
  provider: FakeEmailProvider;
  tally: ApiTally;
  outcomes: Map<string, number>;
  liveIds: string[];
  killedWorker: string;
  databaseUrl: string;
  started: number;
  samples: { at: number; dispatched: number }[];
}

async function verify(e: Evidence): Promise<number> {
  const { db, opId } = e;
  const violations: string[] = [];
  const one = async <T extends pg.QueryResultRow>(text: string, params: unknown[] = []) =>
    (await db.query<T>(text, params)).rows[0]!;
  const num = async (text: string, params: unknown[] = []) => Number((await one<{ n: string }>(text, params)).n);

  // Exactly once: every item dispatched (one replay each), none skipped or left behind.
  const items = await num(`SELECT count(*) AS n FROM bulk_operation_items WHERE operation_id = $1`, [opId]);
  const notDispatched = await num(
    `SELECT count(*) AS n FROM bulk_operation_items WHERE operation_id = $1 AND (replay_id IS NULL OR state IN ('pending', 'skipped', 'not-dispatched'))`,
    [opId],
  );
  const replays = await num(`SELECT count(*) AS n FROM replays WHERE operation_id = $1`, [opId]);
  const twiceDispatched = await num(
    `SELECT count(*) AS n FROM (SELECT review_id FROM replays WHERE operation_id = $1 GROUP BY 1 HAVING count(*) > 1) x`,
    [opId],
  );
  const logged = await num(
    `SELECT count(*) AS n FROM decision_log WHERE action = 'review.replay' AND details ? 'operationId' AND details->>'operationId' = $1`,
    [opId],
  );
  const dispatchedCounter = (
    await one<{ dispatched: number }>(`SELECT dispatched FROM bulk_operations WHERE id = $1`, [opId])
  ).dispatched;
  if (items !== RECORDS) violations.push(`${items} items, expected ${RECORDS}`);
  if (notDispatched > 0)
    violations.push(`${notDispatched} records not dispatched (pending, skipped or without a replay)`);
  if (replays !== RECORDS || dispatchedCounter !== RECORDS || logged !== RECORDS)
    violations.push(
      `replays ${replays}, dispatched ${dispatchedCounter}, review.replay entries ${logged}: expected ${RECORDS} each`,
    );
  if (twiceDispatched > 0) violations.push(`${twiceDispatched} records dispatched twice`);

  // Per-key order of dispatch: within a key, replays created in ascending sequence.
  const orderViolations = await num(
    `SELECT count(*) AS n FROM (
       SELECT r.sequence, lag(r.sequence) OVER (PARTITION BY r.sequence_key ORDER BY r.created_at, i.position) AS previous
         FROM replays r JOIN bulk_operation_items i ON i.operation_id = r.operation_id AND i.replay_id = r.id
        WHERE r.operation_id = $1) x
      WHERE previous >= sequence`,
    [opId],
  );
  if (orderViolations > 0) violations.push(`${orderViolations} dispatches out of sequence order within their key`);

  // The rate, over the whole dispatch (first to last replay, database clock), kills included.
  const span = await one<{ first: number; last: number }>(
    `SELECT extract(epoch FROM min(created_at))::float8 AS first, extract(epoch FROM max(created_at))::float8 AS last
       FROM replays WHERE operation_id = $1`,
    [opId],
  );
  const achieved = (replays - 1) / (span.last - span.first);
  const deviation = (achieved - RATE) / RATE;
  if (Math.abs(deviation) > RATE_TOLERANCE)
    violations.push(`dispatch rate ${achieved.toFixed(1)}/s, ${(deviation * 100).toFixed(1)}% off ${RATE}/s`);
  // The slowest 10 s window (from the samples): how much the kill cost.
  let slowest = Infinity;
  for (let i = 0; i < e.samples.length; i++) {
    const j = e.samples.findIndex((s) => s.at >= e.samples[i]!.at + 10);
    if (j < 0) break;
    const a = e.samples[i]!;
    const b = e.samples[j]!;
    if (b.dispatched >= RECORDS || a.dispatched === 0) continue;
    slowest = Math.min(slowest, (b.dispatched - a.dispatched) / (b.at - a.at));
  }

  // Claims: a replay claimed again only after the killed worker's claim ran out.
  const reclaimed = (
    await db.query<{ replay_id: string; holders: string[] }>(
      `SELECT h.details->>'replayId' AS replay_id, array_agg(h.details->>'consumer' ORDER BY h.id) AS holders
         FROM review_history h JOIN replays r ON r.id::text = h.details->>'replayId'
        WHERE h.action = 'replay-claimed' AND r.operation_id = $1 AND r.claims > 1
        GROUP BY 1`,
      [opId],
    )
  ).rows;
  const claimedTwice = reclaimed.filter((r) => r.holders.slice(0, -1).some((h) => h !== e.killedWorker));
  if (claimedTwice.length > 0)
    violations.push(
      `${claimedTwice.length} replays claimed twice while no claim had run out: ${JSON.stringify(claimedTwice.slice(0, 3))}`,
    );
  // Replays not yet run are still scheduled or claimed, never lost.
  const replayStates = (
    await db.query<{ state: string; n: string }>(
      `SELECT state::text, count(*) AS n FROM replays WHERE operation_id = $1 GROUP BY 1 ORDER BY 1`,
      [opId],
    )
  ).rows;
  const outcomesByState = (
    await db.query<{ state: string; n: string }>(
      `SELECT state::text, count(*) AS n FROM bulk_operation_items WHERE operation_id = $1 GROUP BY 1 ORDER BY 1`,
      [opId],
    )
  ).rows;

  // Effects: never twice, per key in increasing sequence.
  const stats = e.provider.snapshot();
  if (stats.repeats > 0) violations.push(`${stats.repeats} effects requested twice at the provider`);
  const lastSent = new Map<string, number>();
  let effectOrder = 0;
  for (const email of e.provider.sent) {
    const key = String(email.request.metadata?.sequenceKey);
    const sequence = Number(email.request.metadata?.sequence);
    if (sequence <= (lastSent.get(key) ?? 0)) effectOrder++;
    lastSent.set(key, sequence);
  }
  if (effectOrder > 0) violations.push(`${effectOrder} emails out of sequence order within their key`);

  // Live traffic: every message applied or on record.
  const { rows: liveRows } = await db.query<{ message_id: string }>(
    `SELECT message_id FROM effect_journal WHERE state = 'applied' AND message_id = ANY($1)
     UNION SELECT message_id FROM review_records WHERE message_id = ANY($1)`,
    [e.liveIds],
  );
  const liveLost = e.liveIds.length - new Set(liveRows.map((r) => r.message_id)).size;
  if (liveLost > 0) violations.push(`${liveLost} live messages lost (neither applied nor on record)`);

  // No 500 from any console.
  if (e.tally.serverErrors.length > 0)
    violations.push(
      `${e.tally.serverErrors.length} answers 5xx other than 503: ${e.tally.serverErrors.slice(0, 3).join("; ")}`,
    );

  // The decision log's chain, by the CLI an auditor runs.
  const audit = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "cli", "main.ts"), "audit", "verify"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: e.databaseUrl, LOG_LEVEL: "error" },
    encoding: "utf8",
  });
  const auditLine = `${audit.stdout.trim()} ${audit.stderr.trim()}`.trim();
  if (audit.status !== 0) violations.push(`audit verify failed (exit ${audit.status}): ${auditLine}`);

  console.log(
    `\nscale-out test results (${((Date.now() - e.started) / 1000).toFixed(1)} s; load average ${loadAverage()})`,
  );
  line("consoles / workers (one of each SIGKILLed mid-way)", `${CONSOLES} / ${WORKERS}`);
  line("records dispatched (replays; review.replay entries)", `${replays} (${logged})`);
  line("records dispatched twice (duplicates)", twiceDispatched);
  line("records not dispatched", notDispatched);
  line("per-key order violations (dispatch; effects)", `${orderViolations}; ${effectOrder}`);
  line("set rate / achieved rate", `${RATE}/s / ${achieved.toFixed(1)}/s`);
  line("rate deviation", `${deviation >= 0 ? "+" : ""}${(deviation * 100).toFixed(1)}%`);
  line("slowest 10 s window (around the kills)", Number.isFinite(slowest) ? `${slowest.toFixed(1)}/s` : "n/a");
  line("replays claimed twice while a claim was live", claimedTwice.length);
  line(`replays re-claimed after ${e.killedWorker}'s claim ran out`, reclaimed.length - claimedTwice.length);
  line("replays by state", replayStates.map((r) => `${r.state} ${r.n}`).join(", "));
  line("items by state", outcomesByState.map((r) => `${r.state} ${r.n}`).join(", "));
  line("provider calls / emails / effects twice", `${stats.calls} / ${stats.created} / ${stats.repeats}`);
  line("live messages / lost", `${e.liveIds.length} / ${liveLost}`);
  line("API answers by status", e.tally.summary());
  line("API requests refused by the killed console (then sent on)", e.tally.refused);
  line("audit verify", auditLine || `exit ${audit.status}`);
  console.log("  worker outcomes:");
  for (const [label, n] of [...e.outcomes].sort()) line(`    ${label}`, n);
  if (violations.length > 0) {
    console.log(`\nFAILED: ${violations.length} violations`);
    for (const v of violations) console.log(`  - ${v}`);
    return 1;
  }
  console.log(
    "\nPASSED: every record dispatched exactly once in per-key order at the set rate, no replay claimed twice, no effect twice, the chain verifies",
  );
  return 0;
}

runMain(main);
