import "dotenv/config";
import pg from "pg";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { type Actor } from "@/lib/access";
import { createApiToken } from "@/lib/auth";
import { db } from "@/lib/db/client";
import { scrapeMetrics } from "@/lib/overview";
import { intakeLiveRecords, ms, summarize, type Summary, table, withBenchDatabase } from "./support";

/*
 * What one scrape of GET /api/metrics costs on a large database: 1,000,000 review records,
 * 3,000,000 decision-log entries, 200,000 replays, and bulk operations with 300,000 items (one
 * running, 80,000 of its records pending). Timed through the real route handler (token lookup,
 * the one gauge query, prom-client's text), one scrape at a time. The old way (GROUP BY over the
 * tables at every scrape, as lib/overview/metrics.ts did before the counts table) is timed on the
 * same data as the baseline.
 *
 * Seeding is set-based and bypasses what would make it slow, as stated here:
 * - review_records: one INSERT .. SELECT generate_series per 250,000 rows, with the table's
 *   secondary indexes dropped and rebuilt afterwards, except the trigram search index, which is
 *   dropped and not rebuilt (about a minute to build; no scrape query can use it). The counts'
 *   triggers stay on: they keep the counts of these rows, as they would in production.
 * - decision_log: written with session_replication_role = replica (superuser), which switches its
 *   triggers off: no hash chain is computed (seq, at and placeholder hashes are set directly, and
 *   the head row is moved to the last entry). The scrape never reads the log; the baseline's
 *   GROUP BY reads it as it would read a real one. Its indexes are dropped and rebuilt likewise.
 * Then VACUUM ANALYZE, as autovacuum would leave a table at rest. Then 2,000 records arrive
 * through the real intake, so the counts hold fresh delta rows as they would between folds.
 */

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const LOG_ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 3_000_000);
const REPLAYS = Math.min(RECORDS, 200_000);
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 20);
const WARMUP = 3;
const P95_TARGET_MS = 50;
const CHUNK = 250_000;

const actor: Actor = { kind: "token", id: "bench-metrics", label: "token:bench-metrics", role: "consumer" };

/** Non-constraint indexes of `table` (their definitions, to build them again). */
async function dropSecondaryIndexes(client: pg.Client, table: string, keepDropped: string[] = []) {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i WHERE i.indrelid = $1::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [table],
  );
  for (const index of rows) await client.query(`DROP INDEX ${index.name}`);
  return rows.filter((index) => !keepDropped.includes(index.name));
}

async function timed(label: string, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function seed(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET synchronous_commit = off");
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query("SET work_mem = '64MB'");

    console.log(`seeding ${RECORDS.toLocaleString("en")} review records ...`);
    const recordIndexes = await dropSecondaryIndexes(client, "review_records", ["review_records_search_trgm"]);
    for (let lo = 1; lo <= RECORDS; lo += CHUNK) {
      const hi = Math.min(RECORDS, lo + CHUNK - 1);
      await timed(`records ${lo.toLocaleString("en")}-${hi.toLocaleString("en")}`, () =>
        client.query(
          `INSERT INTO review_records (status, category, reason, required_check, attempts, message, message_key,
                                       message_id, kind, effect_key, first_seen_at, last_seen_at, updated_at)
           SELECT (CASE WHEN g % 100 < 60 THEN 'resolved' WHEN g % 100 < 70 THEN 'cancelled'
                        WHEN g % 100 < 95 THEN 'open' WHEN g % 100 < 98 THEN 'replay-scheduled'
                        ELSE 'replaying' END)::"ReviewStatus",
                  (ARRAY['manual-review', 'sequence-gap', 'effect-result-unknown'])[1 + g % 3]::"ReviewCategory",
                  (ARRAY['invalid-payload', 'sequence-gap', 'retry-limit', 'dependency-not-ready',
                         'provider-timeout', 'schema-mismatch', 'duplicate', 'unknown-kind'])[1 + (g / 3) % 8],
                  'look at it', 1 + g % 5,
                  json_build_object('id', 'bench-' || g, 'kind', 'bench.kind' || g % 4,
                                    'effectKey', 'bench-effect-' || g, 'payload', json_build_object('n', g)),
                  'id:bench-' || g, 'bench-' || g, 'bench.kind' || g % 4, 'bench-effect-' || g,
                  t, t, t
             FROM generate_series($1::int, $2::int) AS g,
                  LATERAL (SELECT now() - interval '30 days' + g * (interval '30 days' / $3::int)) AS s(t)`,
          [lo, hi, RECORDS],
        ),
      );
    }
    await timed(`${recordIndexes.length} indexes rebuilt (not the trigram search index)`, async () => {
      for (const index of recordIndexes) await client.query(index.definition);
    });

    console.log(`seeding ${LOG_ENTRIES.toLocaleString("en")} decision-log entries (triggers off, no hash chain) ...`);
    await client.query("SET session_replication_role = replica");
    const logIndexes = await dropSecondaryIndexes(client, "decision_log");
    for (let lo = 1; lo <= LOG_ENTRIES; lo += CHUNK * 2) {
      const hi = Math.min(LOG_ENTRIES, lo + CHUNK * 2 - 1);
      await timed(`entries ${lo.toLocaleString("en")}-${hi.toLocaleString("en")}`, () =>
        client.query(
          `INSERT INTO decision_log (seq, at, actor, actor_role, action, review_id, reason, details, prev_hash, hash)
           SELECT g, now() - interval '1 day' + g * interval '10 microseconds', 'token:bench', 'consumer',
                  (ARRAY['review.reported', 'review.reported', 'review.reported-again', 'review.replay',
                         'replay.applied', 'review.cancel', 'review.note', 'operation.record-selected',
                         'auth.refused', 'token.created'])[1 + g % 10],
                  md5(g::text)::uuid, 'bench', jsonb_build_object('category', 'manual-review', 'attempts', g % 5),
                  CASE WHEN g = 1 THEN repeat('0', 64) ELSE md5((g - 1)::text) || md5((g - 1)::text) END,
                  md5(g::text) || md5(g::text)
             FROM generate_series($1::bigint, $2::bigint) AS g`,
          [lo, hi],
        ),
      );
    }
    await client.query(
      `UPDATE decision_log_head SET last_seq = $1::bigint, last_hash = md5($1::bigint::text) || md5($1::bigint::text)`,
      [LOG_ENTRIES],
    );
    await client.query("SET session_replication_role = origin");
    await timed(`${logIndexes.length} indexes rebuilt`, async () => {
      for (const index of logIndexes) await client.query(index.definition);
    });

    console.log(`seeding ${REPLAYS.toLocaleString("en")} replays and 5 bulk operations (300,000 items) ...`);
    await timed("replays", () =>
      client.query(
        `INSERT INTO replays (review_id, revision_number, state, created_by, completed_at)
         SELECT id, 0, (ARRAY['applied', 'applied', 'applied', 'duplicate-suppressed', 'routed', 'failed',
                              'cancelled', 'scheduled', 'claimed'])[1 + seq % 9]::"ReplayState", 'bench', now()
           FROM review_records WHERE seq <= $1`,
        [REPLAYS],
      ),
    );
    await timed("operations", async () => {
      const ops = await client.query<{ id: string; state: string; n: number }>(
        `INSERT INTO bulk_operations (action, state, reason, selection, total, created_by, created_role, rate_per_second)
         SELECT 'replay', s::"OperationState", 'bench', '{"type":"ids"}', n, 'token:bench', 'owner', 100
           FROM (VALUES ('running', 100000), ('completed', 50000), ('completed', 50000), ('completed', 50000),
                        ('completed', 50000)) AS v(s, n)
         RETURNING id::text, state::text, total AS n`,
      );
      let from = REPLAYS;
      for (const op of ops.rows) {
        // The running one: 20,000 dispatched, the rest pending. The completed ones: all applied.
        await client.query(
          `INSERT INTO bulk_operation_items (operation_id, position, review_id, frozen_version, state)
           SELECT $1::uuid, r.seq - $2, r.id, 1,
                  (CASE WHEN $3 = 'completed' THEN 'applied' WHEN r.seq - $2 <= 20000 THEN 'dispatched'
                        ELSE 'pending' END)::"OperationItemState"
             FROM review_records r WHERE r.seq > $2 AND r.seq <= $2 + $4`,
          [op.id, from, op.state, op.n],
        );
        from += op.n;
      }
    });
  } finally {
    await client.end();
  }
  const vacuum = new pg.Client({ connectionString: url });
  await vacuum.connect();
  await timed("VACUUM ANALYZE", () =>
    vacuum.query("VACUUM ANALYZE review_records, decision_log, replays, bulk_operations, bulk_operation_items"),
  );
  await vacuum.end();
}

/**
 * The scrape as it was before the counts table (lib/overview/metrics.ts at the start of issue
 * 13): the same queries, run at every scrape. Only the queries are timed here, plus turning the
 * rows into text; the new scrape's figure also includes the token lookup and the handler.
 */
async function oldScrape(): Promise<number> {
  const q = db();
  const results = await Promise.all([
    q.$queryRaw`SELECT category::text AS category, reason, count(*) AS n FROM review_records
                 WHERE status IN ('open', 'replay-scheduled', 'replaying') GROUP BY 1, 2`,
    q.$queryRaw`SELECT extract(epoch FROM now() - min(first_seen_at))::float8 AS age FROM review_records WHERE status = 'open'`,
    q.$queryRaw`SELECT action, count(*) AS n FROM decision_log
                 WHERE action LIKE 'review.%' OR action LIKE 'replay.%' GROUP BY 1`,
    q.$queryRaw`SELECT state::text AS state, count(*) AS n FROM replays GROUP BY 1`,
    q.$queryRaw`SELECT state::text AS state, count(*) AS n FROM bulk_operations GROUP BY 1`,
    q.$queryRaw`SELECT o.state::text AS state, count(*) AS n
                  FROM bulk_operations o JOIN bulk_operation_items i ON i.operation_id = o.id AND i.state = 'pending'
                 WHERE o.state IN ('running', 'awaiting-continue', 'paused') GROUP BY 1`,
  ]);
  return JSON.stringify(results, (_, v) => (typeof v === "bigint" ? Number(v) : v)).length;
}

async function measure(run: () => Promise<unknown>, times: number): Promise<Summary> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

async function main() {
  await withBenchDatabase("rc_bench_metrics", async (url) => {
    const started = performance.now();
    await seed(url);
    await intakeLiveRecords(actor, ["invalid-payload", "retry-limit", "provider-timeout", "fresh-cause"]);
    console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);

    const token = (await createApiToken("bench-metrics", "auditor")).token;
    const handlerScrape = async () => {
      const response = await metricsRoute(
        new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${token}` } }),
        { params: Promise.resolve({}) },
      );
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET /api/metrics answered ${response.status}: ${text}`);
      return text;
    };

    // The figures must be right before they are fast: the open records equal a real count.
    const text = await handlerScrape();
    const served = [...text.matchAll(/^review_console_open_records\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    const [{ real }] = await db().$queryRaw<[{ real: number }]>`
      SELECT count(*)::int AS real FROM review_records WHERE status IN ('open', 'replay-scheduled', 'replaying')`;
    const [{ rows }] = await db().$queryRaw<[{ rows: number }]>`
      SELECT ((SELECT count(*) FROM review_record_counts) + (SELECT count(*) FROM replay_counts)
              + (SELECT count(*) FROM operation_pending_counts))::int AS rows`;
    const pending = /^review_console_operation_records_pending\{state="running"\} (\d+)$/m.exec(text)?.[1];
    console.log(`open records served ${served.toLocaleString("en")}, counted ${real.toLocaleString("en")}`);
    console.log(`pending records of the running operation served: ${pending}`);
    console.log(`counts tables: ${rows} rows in all`);
    if (served !== real || pending !== "80000") throw new Error("the scrape's figures are wrong");
    const plan = await db().$queryRaw<{ "QUERY PLAN": string }[]>`
      EXPLAIN SELECT min(first_seen_at) FROM review_records WHERE status = 'open'`;
    console.log(`oldest open record: ${plan.map((p) => p["QUERY PLAN"].trim()).join(" / ")}\n`);

    const handler = await measure(handlerScrape, SCRAPES);
    const direct = await measure(() => scrapeMetrics(), SCRAPES);
    const old = await measure(oldScrape, SCRAPES);
    console.log(
      table(
        ["scrape", "p50 ms", "p95 ms", "max ms"],
        [
          ["GET /api/metrics (handler)", ms(handler.p50), ms(handler.p95), ms(handler.max)],
          ["scrapeMetrics() (no token lookup)", ms(direct.p50), ms(direct.p95), ms(direct.max)],
          ["old GROUP BY queries (baseline)", ms(old.p50), ms(old.p95), ms(old.max)],
        ],
      ),
    );
    console.log(`\nscrape p50 ms: ${ms(handler.p50)}`);
    console.log(`scrape p95 ms: ${ms(handler.p95)}`);
    console.log(`scrape max ms: ${ms(handler.max)}`);
    console.log(`old GROUP BY p95 / scrape p95: ${(old.p95 / handler.p95).toFixed(0)}x`);
    const holds = handler.p95 < P95_TARGET_MS;
    console.log(`target: p95 < ${P95_TARGET_MS} ms: ${holds ? "holds" : "MISSED"}`);
    if (!holds) process.exitCode = 1;
  });
}

await main();
