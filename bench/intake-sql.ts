import "dotenv/config";
import { readFileSync } from "node:fs";
import pg from "pg";
import { type Actor } from "@/lib/access";
import { closeDb } from "@/lib/db/client";
import { withConnection } from "@/lib/db/connection";
import { migrate } from "@/lib/db/migrate";
import { intakeReports, intakeRoundQueryOf, type Report } from "@/lib/reviews";
import { seedSyntheticLogEntries } from "@/testing/seed/synthetic-log";
import { invoiceReport, seedWithProgress, table, withBenchDatabase } from "./support";

/*
 * Where a batch intake statement's time goes inside PostgreSQL (bench/README.md).
 *
 * On a realistic table (BENCH_RECORDS synthetic records, BENCH_LOG_ENTRIES chained log entries),
 * the intake statement of lib/reviews/intake.ts is sent for batches of BENCH_BATCH_SIZE reports
 * (a share BENCH_REPEAT_SHARE of them repeats of the previous batch's messages, the rest new),
 * BENCH_BATCHES batches per variant, each variant inside a transaction that is rolled back:
 *
 *   full                  the statement as the console sends it, on the table as migrated
 *   - index X             the same with one index dropped (one variant per secondary index)
 *   - <group>             the same with a group of indexes dropped, triggers disabled, or a CTE
 *                         of the statement cut out (history, decision log)
 *
 * Variants take turns, BENCH_ROUNDS rounds, to spread the machine's noise over all of them. Per
 * variant: wall time and the backend's CPU time (from /proc, when the server runs here) per
 * batch, and the difference to `full`, which is what that part costs. Then one batch under
 * EXPLAIN (ANALYZE, BUFFERS, WAL): the time of each trigger. With pg_stat_statements loaded
 * (shared_preload_libraries; a scratch cluster, never the shared server's settings), the nested
 * statements the triggers run, by total time.
 */

const RECORDS = Number(process.env.BENCH_RECORDS ?? 200_000);
const LOG_ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 400_000);
const LOG_CHUNK = 40_000;
/** Rows per measurement of one index's insert cost. */
const INDEX_COST_ROWS = Number(process.env.BENCH_INDEX_COST_ROWS ?? 5000);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 500);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REPEAT_SHARE = Number(process.env.BENCH_REPEAT_SHARE ?? 0.2);
/**
 * An existing database to measure on, kept afterwards (every variant is rolled back): migrated,
 * and seeded when it has no records yet, so the next run can skip the seeding. Without it a fresh
 * database is made, seeded and dropped.
 */
const KEEP_DATABASE = process.env.BENCH_DATABASE_URL;
/** Only variants whose label contains this (comma list); `full` always runs. */
const ONLY = process.env.BENCH_VARIANTS?.split(",").filter(Boolean);

const actor: Actor = { kind: "token", id: "bench-intake-sql", label: "token:bench-intake-sql", role: "consumer" };

let serial = 0;
const tag = Math.random().toString(36).slice(2, 8);

function report(n: number): Report {
  return { input: invoiceReport(n, `msg-sql-${tag}-${n}`) };
}

/** A batch: mostly new messages, REPEAT_SHARE of them sent again from `previous`. */
function batch(previous: number[]): number[] {
  const repeats = previous.slice(0, Math.round(BATCH_SIZE * REPEAT_SHARE));
  const fresh = Array.from({ length: BATCH_SIZE - repeats.length }, () => ++serial);
  return [...fresh, ...repeats];
}

/** The statement as the console sends it (a named prepared statement), or without one of its CTEs. */
function statement(numbers: number[], cut?: "history" | "logged"): pg.QueryConfig<unknown[]> {
  const query = intakeRoundQueryOf(numbers.map(report), actor);
  if (!cut) return query;
  const text = withoutCte(query.text, cut);
  // The parameters the shortened text still uses (without the log, the actor's role is unused).
  const used = Math.max(...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return { name: `${query.name}:without-${cut}`, text, values: query.values!.slice(0, used) };
}

/** The statement without one of its CTEs (`history`, `logged`); the final SELECT reads neither. */
function withoutCte(sql: string, name: string): string {
  const start = sql.search(new RegExp(`,\\s*${name}\\s+AS\\s*\\(`));
  if (start < 0) throw new Error(`the intake statement has no \`${name} AS (...)\` CTE`);
  let depth = 0;
  for (let i = sql.indexOf("(", start); i < sql.length; i++) {
    if (sql[i] === "(") depth++;
    else if (sql[i] === ")" && --depth === 0) return sql.slice(0, start) + sql.slice(i + 1);
  }
  throw new Error("unbalanced parentheses in the intake statement");
}

interface Variant {
  label: string;
  /** Run after BEGIN, before the batches (rolled back with them). */
  setup: string[];
  cut?: "history" | "logged";
}

async function indexNames(client: pg.Client, tableName: string): Promise<string[]> {
  // Constraint indexes (the primary keys), the active-message index the upsert needs and the
  // index the chain trigger finds the previous entry by (without it every append scans) stay.
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass AND NOT i.indisprimary
        AND c.relname NOT IN ('review_records_active_message_key', 'decision_log_at_idx')
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      ORDER BY 1`,
    [tableName],
  );
  return rows.map((r) => r.name);
}

async function variants(client: pg.Client): Promise<Variant[]> {
  const records = await indexNames(client, "review_records");
  const log = await indexNames(client, "decision_log");
  const drop = (names: string[]) => names.map((n) => `DROP INDEX ${pg.escapeIdentifier(n)}`);
  const sortIndexes = records.filter((n) => /_(first_seen_at|last_seen_at|attempts)_id_idx$/.test(n));
  const repeatIndexes = records.filter((n) => /_(last_seen_at|attempts)_id_idx$/.test(n));
  const countTriggers = [
    "review_record_counts_insert",
    "review_record_counts_update",
    "review_arrival_counts_insert",
    "review_arrival_counts_update",
  ];
  const all: Variant[] = [
    { label: "full", setup: [] },
    ...records.map((n) => ({ label: `- index ${n}`, setup: drop([n]) })),
    ...log.map((n) => ({ label: `- index ${n}`, setup: drop([n]) })),
    { label: `- the ${sortIndexes.length} queue sort indexes`, setup: drop(sortIndexes) },
    { label: `- the ${repeatIndexes.length} last_seen_at/attempts indexes`, setup: drop(repeatIndexes) },
    { label: "- all secondary indexes of review_records", setup: drop(records) },
    { label: "- all secondary indexes of decision_log", setup: drop(log) },
    { label: "fillfactor 90", setup: ["ALTER TABLE review_records SET (fillfactor = 90)"] },
    {
      label: `fillfactor 90, - the ${repeatIndexes.length} last_seen_at/attempts indexes`,
      setup: ["ALTER TABLE review_records SET (fillfactor = 90)", ...drop(repeatIndexes)],
    },
    {
      label: "trigram index with fastupdate off",
      setup: ["ALTER INDEX review_records_search_trgm SET (fastupdate = off)"],
    },
    {
      label: "- the count triggers",
      setup: countTriggers.map((t) => `ALTER TABLE review_records DISABLE TRIGGER ${t}`),
    },
    { label: "- the history CTE", setup: [], cut: "history" },
    { label: "- the decision-log CTE", setup: [], cut: "logged" },
  ];
  return all.filter((v) => v.label === "full" || !ONLY || ONLY.some((o) => v.label.includes(o)));
}

/** The backend's user + system CPU time in ms, or NaN when its /proc entry is not readable here. */
function backendCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

interface Sample {
  wallMs: number[];
  cpuMs: number;
  batches: number;
  /** Updates of review_records, and how many of them were HOT (no index entries written). */
  updates: number;
  hotUpdates: number;
}

async function runVariant(client: pg.Client, pid: number, variant: Variant, sample: Sample): Promise<void> {
  await client.query("BEGIN");
  try {
    for (const sql of variant.setup) await client.query(sql);
    let previous: number[] = [];
    // One batch first, unmeasured, so the repeats of the first measured batch have records to join.
    previous = batch(previous);
    await client.query(statement(previous, variant.cut));
    const cpuBefore = backendCpuMs(pid);
    for (let i = 0; i < BATCHES; i++) {
      const numbers = batch(previous);
      const query = statement(numbers, variant.cut);
      const started = performance.now();
      await client.query(query);
      sample.wallMs.push(performance.now() - started);
      previous = numbers;
    }
    sample.cpuMs += backendCpuMs(pid) - cpuBefore;
    sample.batches += BATCHES;
    const { rows } = await client.query<{ upd: string; hot: string }>(
      `SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relname = 'review_records'`,
    );
    sample.updates += Number(rows[0]?.upd ?? 0);
    sample.hotUpdates += Number(rows[0]?.hot ?? 0);
  } finally {
    await client.query("ROLLBACK");
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

async function main() {
  if (KEEP_DATABASE) {
    await migrate(KEEP_DATABASE);
    const empty = await withConnection(KEEP_DATABASE, async (c) => {
      const { rows } = await c.query("SELECT 1 FROM review_records LIMIT 1");
      return rows.length === 0;
    });
    if (empty) await seed(KEEP_DATABASE);
    await measure(KEEP_DATABASE);
    return;
  }
  await withBenchDatabase("rc_bench_intake_sql", async (url) => {
    await seed(url);
    await measure(url);
  });
}

/** The table as it is after a while of traffic: records, log entries, live delta rows. */
async function seed(url: string): Promise<void> {
  process.env.DATABASE_URL = url;
  {
    const seeded = await seedWithProgress(url, RECORDS);
    console.log(`  ${(seeded.ms / 1000).toFixed(0)} s`);
    if (LOG_ENTRIES > 0) {
      console.log(`seeding ${LOG_ENTRIES.toLocaleString("en")} decision-log entries ...`);
      // In chunks below the size at which the seed drops and rebuilds the log's indexes: each
      // chunk then maintains them as live appends do, which is what this bench times.
      const started = performance.now();
      for (let done = 0; done < LOG_ENTRIES; done += LOG_CHUNK) {
        await seedSyntheticLogEntries(url, Math.min(LOG_CHUNK, LOG_ENTRIES - done));
      }
      console.log(`  ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    // Live traffic through the real intake: the counts' delta rows and the chain trigger warm.
    for (let i = 0; i < 4; i++) await intakeReports(batch([]).map(report), actor);
    await closeDb();
  }
}

async function measure(url: string): Promise<void> {
  {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("VACUUM ANALYZE");
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const pid = rows[0]!.pid;
      const list = await variants(client);
      const samples = new Map(
        list.map((v) => [v.label, { wallMs: [], cpuMs: 0, batches: 0, updates: 0, hotUpdates: 0 } as Sample]),
      );
      console.log(
        `${list.length} variants x ${ROUNDS} rounds x ${BATCHES} batches of ${BATCH_SIZE} ` +
          `(${Math.round(REPEAT_SHARE * 100)}% repeats), each variant rolled back`,
      );
      for (let round = 0; round < ROUNDS; round++) {
        for (const variant of list) await runVariant(client, pid, variant, samples.get(variant.label)!);
        console.log(`  round ${round + 1} done`);
      }
      const full = samples.get("full")!;
      const fullWall = median(full.wallMs);
      const fullCpu = full.cpuMs / full.batches;
      console.log(
        `\n${table(
          ["variant", "median ms/batch", "saves ms", "CPU ms/batch", "saves CPU ms", "µs CPU/record", "HOT updates"],
          list.map((v) => {
            const s = samples.get(v.label)!;
            const wall = median(s.wallMs);
            const cpu = s.cpuMs / s.batches;
            return [
              v.label,
              wall.toFixed(1),
              v.label === "full" ? "" : (fullWall - wall).toFixed(1),
              cpu.toFixed(1),
              v.label === "full" ? "" : (fullCpu - cpu).toFixed(1),
              ((cpu * 1000) / BATCH_SIZE).toFixed(0),
              s.updates ? `${Math.round((s.hotUpdates / s.updates) * 100)}% of ${s.updates}` : "",
            ];
          }),
        )}`,
      );

      // One batch under EXPLAIN ANALYZE: the triggers' own times.
      await client.query("BEGIN");
      const warm = batch([]);
      await client.query(statement(warm));
      const explained = statement(batch(warm));
      const plan = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) ${explained.text}`,
        explained.values!,
      );
      await client.query("ROLLBACK");
      console.log("\nEXPLAIN (ANALYZE, BUFFERS, WAL) of one batch:");
      for (const row of plan.rows) console.log(`  ${row["QUERY PLAN"]}`);

      await nestedStatements(client);
      await indexCosts(client, pid, "review_records");
      await indexCosts(client, pid, "decision_log_" + (await currentLogPartition(client)));
    } finally {
      await client.end();
    }
  }
}

/** The month partition of the log that appends go to now (`2026_12`). */
async function currentLogPartition(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ month: string }>(
    `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY_MM') AS month`,
  );
  return rows[0]!.month;
}

/**
 * What each index of `source` costs an insert, measured one at a time: rows of the table copied
 * into a scratch table with no index, then with that one index only (in a transaction rolled
 * back, so WAL is written as for the real table). Steadier than dropping one index of 22 from
 * the whole statement: the difference is the index alone, not the noise of everything else.
 */
async function indexCosts(client: pg.Client, pid: number, source: string): Promise<void> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass ORDER BY 1`,
    [source],
  );
  const rowsPerRun = INDEX_COST_ROWS;
  // A sample of real rows, read once: every run then inserts the same rows from memory.
  await client.query("DROP TABLE IF EXISTS pg_temp.intake_index_rows");
  await client.query(
    `CREATE TEMP TABLE intake_index_rows AS SELECT * FROM ${pg.escapeIdentifier(source)} ORDER BY random() LIMIT $1`,
    [rowsPerRun],
  );
  const costOf = async (definition: string | null): Promise<number> => {
    let total = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await client.query("BEGIN");
      try {
        await client.query(`CREATE TABLE intake_index_cost (LIKE ${pg.escapeIdentifier(source)} INCLUDING DEFAULTS)`);
        if (definition) {
          await client.query(
            definition
              .replace(/^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+/, "CREATE $1INDEX ON intake_index_cost")
              .replace(/^CREATE UNIQUE INDEX/, "CREATE INDEX"), // the copies may repeat a key
          );
        }
        const before = backendCpuMs(pid);
        await client.query("INSERT INTO intake_index_cost SELECT * FROM intake_index_rows");
        total += backendCpuMs(pid) - before;
      } finally {
        await client.query("ROLLBACK");
      }
    }
    return total / ROUNDS;
  };
  const base = await costOf(null);
  const measured: [string, number][] = [];
  for (const index of indexes) measured.push([index.name, (await costOf(index.definition)) - base]);
  measured.sort((a, b) => b[1] - a[1]);
  const sum = measured.reduce((t, [, ms]) => t + ms, 0);
  console.log(
    `\nindexes of ${source}: CPU per inserted row, each index alone (${rowsPerRun} rows x ${ROUNDS}; ` +
      `the rows themselves ${((base * 1000) / rowsPerRun).toFixed(1)} µs):`,
  );
  console.log(
    table(
      ["index", "µs/row", "share"],
      [
        ...measured.map(([name, ms]) => [
          name,
          ((ms * 1000) / rowsPerRun).toFixed(1),
          `${Math.round((ms / sum) * 100)}%`,
        ]),
        ["all of them", ((sum * 1000) / rowsPerRun).toFixed(1), "100%"],
      ],
    ),
  );
}

/** With pg_stat_statements: the statements run inside the intake statement (its triggers). */
async function nestedStatements(client: pg.Client): Promise<void> {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await client.query("SELECT pg_stat_statements_reset()");
  } catch {
    console.log("\n(pg_stat_statements is not loaded on this server: no nested statements)");
    return;
  }
  await client.query("SET pg_stat_statements.track = 'all'").catch(() => {});
  let previous: number[] = [];
  await client.query("BEGIN");
  for (let i = 0; i < BATCHES; i++) {
    const numbers = batch(previous);
    await client.query(statement(numbers));
    previous = numbers;
  }
  await client.query("ROLLBACK");
  const { rows } = await client.query<{ query: string; calls: string; total: number; mean: number }>(
    `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::text, total_exec_time AS total, mean_exec_time AS mean
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time DESC LIMIT 15`,
  );
  console.log(`\npg_stat_statements over ${BATCHES} batches (nested statements included):`);
  console.log(
    table(
      ["statement", "calls", "total ms", "mean ms"],
      rows.map((r) => [r.query.slice(0, 110), r.calls, r.total.toFixed(1), r.mean.toFixed(3)]),
    ),
  );
}

await main();
