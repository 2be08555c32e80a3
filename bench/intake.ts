import "dotenv/config";
import pg from "pg";
import { POST as postBatch } from "@/app/api/v1/reviews/batch/route";
import { POST as postOne } from "@/app/api/v1/reviews/route";
import { createApiToken } from "@/lib/auth";
import { dbPool } from "@/lib/db/client";
import { INTAKE_STATEMENT_NAME, MAX_BATCH } from "@/lib/reviews";
import { ms, runConcurrently, summarize, table, withBenchDatabase } from "./support";

/*
 * What the decision log costs at intake. Batches of distinct messages are posted through the real
 * batch route handler (token lookup, zod, the intake statement, JSON answer) by C concurrent
 * clients, in two modes, alternated A B A B on fresh message ids to spread out the noise:
 *
 *   with log     the normal path: records, history and the hash-chained decision-log entries.
 *   without log  the same requests through the same handler, but the intake statement is sent
 *                with its `logged AS (...)` CTE cut out, so it writes the same records and
 *                history and no log entries. The cut is made here, on the statement intake passes
 *                to the pool (see withoutDecisionLog), so nothing else differs.
 *
 * The log's cost is mostly serialisation: every append takes the chain head's row lock until its
 * transaction commits, so concurrent batches queue for it.
 */

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SINGLE_REQUESTS = Number(process.env.BENCH_SINGLE_REQUESTS ?? 2000);
const BATCH_SIZE = MAX_BATCH;

type Mode = "with log" | "without log";

/**
 * The intake statement minus its decision-log CTE, and how many of its parameters remain in use
 * (the actor's role is the log's alone). Throws when the statement's shape changed.
 */
function withoutDecisionLog(sql: string): { sql: string; parameters: number } {
  const start = sql.search(/,\s*logged\s+AS\s*\(/);
  if (start < 0) throw new Error("the intake statement has no `logged AS (...)` CTE to remove");
  let depth = 0;
  for (let i = sql.indexOf("(", start); i < sql.length; i++) {
    if (sql[i] === "(") depth++;
    else if (sql[i] === ")" && --depth === 0) {
      const stripped = sql.slice(0, start) + sql.slice(i + 1);
      if (/decision_log/.test(stripped)) throw new Error("the intake statement still writes decision_log");
      const parameters = Math.max(...[...stripped.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
      return { sql: stripped, parameters };
    }
  }
  throw new Error("unbalanced parentheses in the intake statement");
}

let mode: Mode = "with log";
let rewritten = 0;

/**
 * Routes the intake statement through withoutDecisionLog while mode is "without log". Intake
 * sends it on the console's pool as a named prepared statement (lib/reviews/intake-statement.ts);
 * the rewritten text goes under a name of its own. The counter and the log row counts below
 * prove the baseline really ran without the log.
 */
function interceptIntakeStatement(): void {
  const pool = dbPool();
  const original = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>;
  const patched = (config: unknown, ...rest: unknown[]) => {
    if (mode === "without log" && typeof config === "object" && config !== null) {
      const query = config as pg.QueryConfig;
      if (query.name === INTAKE_STATEMENT_NAME) {
        rewritten++;
        const baseline = withoutDecisionLog(query.text);
        // The bench alone sends a statement text it rewrote; the console never does (ADR 0012).
        return original({
          name: `${query.name}:without-log`,
          text: baseline.sql,
          values: query.values!.slice(0, baseline.parameters),
        });
      }
    }
    return original(config, ...rest);
  };
  pool.query = patched as typeof pool.query;
}

/** A realistic report: the three categories in turn, keys that name the business object. */
function report(messageId: string, n: number) {
  const sequenceKey = `invoice-${n}`;
  const sequence = 2 + (n % 5);
  const effectKey = `${sequenceKey}:reminder-${sequence}`;
  const common = {
    attempts: 1 + (n % 3),
    source: { transport: "redis-streams", queue: "invoices", consumer: `worker-${n % 4}`, transportId: `${n}-0` },
    message: {
      id: messageId,
      kind: "invoice.reminder",
      effectKey,
      sequenceKey,
      sequence,
      payload: { schema: "2021-03", invoiceId: String(n) },
    },
  };
  switch (n % 3) {
    case 0:
      return {
        ...common,
        category: "sequence-gap",
        reason: "sequence-gap",
        requiredCheck: `find message ${sequence - 1} of ${sequenceKey}`,
      };
    case 1:
      return {
        ...common,
        category: "effect-result-unknown",
        reason: "effect-result-unknown",
        requiredCheck: `ask the provider whether reminder ${n} was sent (idempotency key ${effectKey})`,
        lastError: "provider timeout after 30000 ms; the request was sent",
      };
    default:
      return {
        ...common,
        category: "manual-review",
        reason: "retry-limit",
        requiredCheck: `find out why invoice.reminder keeps failing for ${sequenceKey} before replaying it`,
        lastError: "dependency-not-ready: upstream answered 503",
      };
  }
}

let token = "";
let serial = 0;

function post(handler: typeof postOne, path: string, body: string): Promise<Response> {
  return handler(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    }),
  );
}

/** Posts `batches` batches of fresh messages, C at a time; bodies are built before the clock starts. */
async function batchRound(batches: number): Promise<{ recordsPerSecond: number; latencies: number[] }> {
  const bodies = Array.from({ length: batches }, () =>
    JSON.stringify({
      records: Array.from({ length: BATCH_SIZE }, () => {
        const n = ++serial;
        return report(`msg-bench-${n}`, n);
      }),
    }),
  );
  const started = performance.now();
  const latencies = await runConcurrently(batches, CONCURRENCY, async (i) => {
    const response = await post(postBatch, "/api/v1/reviews/batch", bodies[i]!);
    const answer = (await response.json()) as { recorded?: number };
    if (response.status !== 200 || answer.recorded !== BATCH_SIZE)
      throw new Error(`batch answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  });
  const seconds = (performance.now() - started) / 1000;
  return { recordsPerSecond: (batches * BATCH_SIZE) / seconds, latencies };
}

async function logEntries(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM decision_log");
  return Number(rows[0]!.n);
}

async function main() {
  await withBenchDatabase("rc_bench_intake", async (url) => {
    token = (await createApiToken("bench-intake", "consumer")).token;
    interceptIntakeStatement();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Warm-up: JIT, connection pool, plan caches; not counted.
      for (const m of ["with log", "without log"] as const) {
        mode = m;
        await batchRound(CONCURRENCY);
      }

      const rounds: { mode: Mode; recordsPerSecond: number; logged: number }[] = [];
      const latencies: Record<Mode, number[]> = { "with log": [], "without log": [] };
      console.log(
        `batch intake: ${ROUNDS} rounds per mode, each ${BATCHES} batches of ${BATCH_SIZE} new messages, ` +
          `${CONCURRENCY} concurrent clients`,
      );
      for (let round = 0; round < ROUNDS; round++) {
        for (const m of ["with log", "without log"] as const) {
          mode = m;
          const before = await logEntries(client);
          const result = await batchRound(BATCHES);
          const logged = (await logEntries(client)) - before;
          const expected = m === "with log" ? BATCHES * BATCH_SIZE : 0;
          if (logged !== expected) throw new Error(`${m}: ${logged} log entries, expected ${expected}`);
          rounds.push({ mode: m, recordsPerSecond: result.recordsPerSecond, logged });
          latencies[m].push(...result.latencies);
          console.log(
            `  round ${round + 1} ${m.padEnd(11)} ${result.recordsPerSecond.toFixed(0).padStart(6)} records/s ` +
              `(${logged} log entries)`,
          );
        }
      }
      if (rewritten !== ROUNDS * BATCHES + CONCURRENCY)
        throw new Error(`the baseline statement was rewritten ${rewritten} times, expected one per batch`);

      const rate = (m: Mode) => {
        const mine = rounds.filter((r) => r.mode === m).map((r) => r.recordsPerSecond);
        // Harmonic mean: the rate of all of the mode's records over all of its time.
        return mine.length / mine.reduce((sum, r) => sum + 1 / r, 0);
      };
      const withLog = rate("with log");
      const withoutLog = rate("without log");
      const row = (m: Mode, r: number) => {
        const s = summarize(latencies[m]);
        return [m, r.toFixed(0), ms(s.p50), ms(s.p95), ms(s.max)];
      };
      console.log(
        `\nPOST /api/v1/reviews/batch, ${BATCH_SIZE} records per batch, C=${CONCURRENCY}, ` +
          `${ROUNDS * BATCHES * BATCH_SIZE} records per mode\n`,
      );
      console.log(
        table(
          ["mode", "records/s", "batch p50 ms", "batch p95 ms", "batch max ms"],
          [row("with log", withLog), row("without log", withoutLog)],
        ),
      );
      console.log(
        `\nratio with log / without log: ${(withLog / withoutLog).toFixed(2)} ` +
          `(the log costs ${((1 - withLog / withoutLog) * 100).toFixed(0)}% of batch intake throughput)`,
      );

      mode = "with log";
      const bodies = Array.from({ length: SINGLE_REQUESTS }, () => {
        const n = ++serial;
        return JSON.stringify(report(`msg-bench-${n}`, n));
      });
      const before = await logEntries(client);
      const started = performance.now();
      const single = await runConcurrently(SINGLE_REQUESTS, CONCURRENCY, async (i) => {
        const response = await post(postOne, "/api/v1/reviews", bodies[i]!);
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`single POST answered ${response.status}`);
      });
      const seconds = (performance.now() - started) / 1000;
      const logged = (await logEntries(client)) - before;
      if (logged !== SINGLE_REQUESTS) throw new Error(`single POSTs wrote ${logged} log entries`);
      const s = summarize(single);
      console.log(
        `\nPOST /api/v1/reviews (one record per request, with log), ${SINGLE_REQUESTS} requests, C=${CONCURRENCY}\n`,
      );
      console.log(
        table(
          ["requests/s", "p50 ms", "p95 ms", "max ms"],
          [[(SINGLE_REQUESTS / seconds).toFixed(0), ms(s.p50), ms(s.p95), ms(s.max)]],
        ),
      );
    } finally {
      await client.end();
    }
  });
}

await main();
