import "dotenv/config";
import pg from "pg";
import { type Actor } from "@/lib/access";
import { confirmOperation, dryRunOperation, pauseOperation, resumeOperation, createOperation } from "@/lib/operations";
import { runDispatcher } from "@/lib/actions";
import type { Selection } from "@/lib/operations";
import { sleep } from "@review-console/consumer";
import { ms, summarize, table, withBenchDatabase } from "./support";

/*
 * Bulk operations (docs/operations.md) on an incident's worth of held records, through the same
 * functions the API routes call (createOperation, dryRunOperation, confirmOperation) and the
 * console's own dispatcher loop (runDispatcher), in process: no HTTP, no consumer.
 *
 *   freeze    createOperation over one cause of 100,000 records: the items in dispatch order,
 *             one `operation.record-selected` decision-log entry per record, the operation's own
 *             `operation.created`, all in one transaction.
 *   dry run   dryRunOperation: what `decide` would say of each record now, against the effect
 *             journal and the sequence state the seed wrote (a known mix of verdicts, checked).
 *   dispatch  runDispatcher for a fixed window at a set rate, twice: the big operation at 100/s,
 *             then a second operation on another cause at 25/s. The achieved rate is measured
 *             after a warm-up, from the operation's `dispatched` counter (database clock) and,
 *             as a cross-check, from the dispatched items' updated_at.
 *
 * The records are written with one INSERT .. SELECT generate_series each cause, shaped like what
 * intake writes (envelope text, message_key, indexed keys, source), but without history rows or
 * decision-log entries (load, not evidence), as testing/seed/synthetic.ts does. Its own generator
 * does not fit: it spreads records over many causes and kinds, while an operation selects one.
 */

const KEYS = Number(process.env.BENCH_KEYS ?? 20_000);
/** Held sequences per key: 3..(2 + PER_KEY), arriving out of order. */
const PER_KEY = 5;
const RECORDS = KEYS * PER_KEY;
/** The second cause, for the second rate. */
const SECOND_RECORDS = Number(process.env.BENCH_SECOND_RECORDS ?? 2_000);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 15);
const WARMUP_S = 2;
const RATES = [100, 25] as const;
/** Far above what one dispatcher reaches (the API allows up to 1000/s): its measured rate is the ceiling. */
const CEILING_RATE = 5000;

const FREEZE_TARGET_S = 20;
const DRY_RUN_TARGET_S = 20;
const RATE_TOLERANCE = 0.1;

const ACTOR: Actor = { kind: "user", id: "bench", label: "user:bench@local", role: "owner" };

const MAIN_CAUSE = { kind: "invoice.reminder", reason: "sequence-gap", errorClass: null };
const SECOND_CAUSE = { kind: "invoice.reminder", reason: "retry-limit", errorClass: "dependency-not-ready" };

/*
 * The main cause: KEYS invoice keys, each with the held sequences 3..7 (category sequence-gap,
 * open), arriving rotated per key (key k's first report is sequence 3 + k % 5), so the freeze has
 * to reorder each key's sequences over its positions. What the journal and the sequence state
 * say of a key depends on k % 10, which fixes the dry run's verdicts:
 *
 *   0-5  last applied 2                        3..7 would-apply
 *   6-7  no state (last 0)                     3..7 would-hold-gap
 *   8    last applied 4, effects 3, 4 applied  3, 4 would-suppress; 5..7 would-apply
 *   9    last applied 2, effect 3 `unknown`    3 would-hold-unknown; 4..7 would-hold-gap
 *
 * $1 keys, $2 sequences per key. Records first seen 100 ms apart, ending about now.
 */
const SEED_MAIN_SQL = `
WITH numbered AS (
  SELECT g, (g - 1) % $1 AS k, (g - 1) / $1 AS arrival FROM generate_series(1, $1::bigint * $2) AS g
), keyed AS (
  SELECT g, k, 'msg-bulk-' || g AS message_id, 'invoice-' || (100000 + k) AS sequence_key,
         3 + (arrival + k) % $2 AS sequence
    FROM numbered
), shaped AS (
  SELECT *, sequence_key || ':reminder-' || sequence AS effect_key,
         now() - ($1::bigint * $2 - g) * interval '100 milliseconds' AS seen
    FROM keyed
)
INSERT INTO review_records (status, category, reason, required_check, attempts, report_count, last_error,
    message, message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source,
    version, first_seen_at, last_seen_at, updated_at)
SELECT 'open', 'sequence-gap', 'sequence-gap',
       'find messages 1–' || (sequence - 1) || ' of ' || sequence_key, 1, 1, NULL,
       ('{"id":"' || message_id || '","kind":"invoice.reminder","effectKey":"' || effect_key
         || '","sequenceKey":"' || sequence_key || '","sequence":' || sequence
         || ',"payload":{"schema":"2021-03","invoiceId":"' || (100000 + k) || '"}}')::json,
       'id:' || message_id, message_id, 'invoice.reminder', effect_key, sequence_key, sequence, '2021-03',
       jsonb_build_object('transport', 'redis-streams', 'queue', 'invoices', 'consumer', 'worker-' || g % 4,
                          'transportId', (1764460800000 + g) || '-0'),
       1, seen, seen, seen
  FROM shaped ORDER BY g`;

/** The key states of the table above. $1 keys. */
const SEED_STATE_SQL = [
  `INSERT INTO sequence_state (sequence_key, last_sequence)
   SELECT 'invoice-' || (100000 + k), CASE WHEN k % 10 = 8 THEN 4 ELSE 2 END
     FROM generate_series(0, $1::int - 1) AS k WHERE k % 10 NOT IN (6, 7)`,
  `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, started_at, updated_at)
   SELECT 'invoice-' || (100000 + k) || ':reminder-' || s, 'applied', 'msg-applied-' || k || '-' || s,
          'invoice.reminder', 'invoice-' || (100000 + k), s, now() - interval '1 hour', now() - interval '1 hour'
     FROM generate_series(0, $1::int - 1) AS k, generate_series(3, 4) AS s WHERE k % 10 = 8`,
  `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, started_at, updated_at)
   SELECT 'invoice-' || (100000 + k) || ':reminder-3', 'unknown', 'msg-unknown-' || k,
          'invoice.reminder', 'invoice-' || (100000 + k), 3, now() - interval '2 hours', now() - interval '2 hours'
     FROM generate_series(0, $1::int - 1) AS k WHERE k % 10 = 9`,
];

/** The second cause: $1 records that hit the retry limit, one per key, sequence 1, no state. */
const SEED_SECOND_SQL = `
WITH shaped AS (
  SELECT g, 'msg-bulk-retry-' || g AS message_id, 'invoice-' || (900000 + g) AS sequence_key,
         now() - ($1::bigint - g) * interval '1 second' AS seen
    FROM generate_series(1, $1::bigint) AS g
)
INSERT INTO review_records (status, category, reason, required_check, attempts, report_count, last_error,
    error_class, message, message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source,
    version, first_seen_at, last_seen_at, updated_at)
SELECT 'open', 'manual-review', 'retry-limit',
       'find out why invoice.reminder keeps failing for ' || sequence_key || ' before replaying it', 3, 1,
       'dependency-not-ready: upstream answered 503 for ' || sequence_key, 'dependency-not-ready',
       ('{"id":"' || message_id || '","kind":"invoice.reminder","effectKey":"' || sequence_key
         || ':reminder-1","sequenceKey":"' || sequence_key || '","sequence":1,"payload":{"schema":"2021-03","invoiceId":"'
         || (900000 + g) || '"}}')::json,
       'id:' || message_id, message_id, 'invoice.reminder', sequence_key || ':reminder-1', sequence_key, 1, '2021-03',
       jsonb_build_object('transport', 'redis-streams', 'queue', 'invoices', 'consumer', 'worker-' || g % 4,
                          'transportId', (1764470800000 + g) || '-0'),
       1, seen, seen, seen
  FROM shaped ORDER BY g`;

/** The dry run's verdicts the seed implies (see SEED_MAIN_SQL); exact when KEYS is a multiple of 10. */
function expectedVerdicts(keys: number): Record<string, number> {
  let apply = 0;
  let gap = 0;
  let suppress = 0;
  let unknown = 0;
  for (let k = 0; k < keys; k++) {
    const c = k % 10;
    if (c <= 5) apply += PER_KEY;
    else if (c <= 7) gap += PER_KEY;
    else if (c === 8) {
      suppress += 2;
      apply += PER_KEY - 2;
    } else {
      unknown += 1;
      gap += PER_KEY - 1;
    }
  }
  return { "would-apply": apply, "would-hold-gap": gap, "would-suppress": suppress, "would-hold-unknown": unknown };
}

const n = (value: number) => value.toLocaleString("en");
const seconds = (msValue: number) => (msValue / 1000).toFixed(2);

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

async function seed(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { ms: took } = await timed(async () => {
      await client.query("SET synchronous_commit = off");
      await client.query("BEGIN");
      await client.query(SEED_MAIN_SQL, [KEYS, PER_KEY]);
      for (const sql of SEED_STATE_SQL) await client.query(sql, [KEYS]);
      await client.query(SEED_SECOND_SQL, [SECOND_RECORDS]);
      await client.query("COMMIT");
      await client.query("ANALYZE review_records");
      await client.query("ANALYZE sequence_state");
      await client.query("ANALYZE effect_journal");
    });
    const { rows } = await client.query<{ reason: string; n: string }>(
      "SELECT reason, count(*) AS n FROM review_records GROUP BY reason ORDER BY reason",
    );
    console.log(
      `seeded ${rows.map((r) => `${n(Number(r.n))} ${r.reason}`).join(", ")} records ` +
        `(${n(KEYS)} keys x ${PER_KEY} sequences for the main cause) in ${seconds(took)} s, ANALYZE included`,
    );
  } finally {
    await client.end();
  }
}

interface OperationRow {
  total: number;
  state: string;
  version: number;
  dispatched: number;
  dry_run: { at: string; counts: Record<string, number> } | null;
}

async function operation(client: pg.Client, id: string): Promise<OperationRow> {
  const { rows } = await client.query<OperationRow>(
    "SELECT total, state::text, version, dispatched, dry_run FROM bulk_operations WHERE id = $1",
    [id],
  );
  if (!rows[0]) throw new Error(`no operation ${id}`);
  return rows[0];
}

async function count(client: pg.Client, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await client.query<{ n: string }>(sql, params);
  return Number(rows[0]!.n);
}

interface Freeze {
  id: string;
  ms: number;
}

/** createOperation, timed, then its counts checked: items, record-selected and created entries. */
async function freeze(
  client: pg.Client,
  group: Selection & { type: "group" },
  rate: number,
  expected: number,
): Promise<Freeze> {
  const { value: id, ms: took } = await timed(() =>
    createOperation(
      {
        action: "replay",
        reason: `bench: replay the held ${group.group.reason} records of the incident`,
        selection: group,
        ratePerSecond: rate,
      },
      ACTOR,
    ),
  );
  const op = await operation(client, id);
  const items = await count(client, "SELECT count(*) AS n FROM bulk_operation_items WHERE operation_id = $1", [id]);
  const selected = await count(
    client,
    `SELECT count(*) AS n FROM decision_log
      WHERE action = 'operation.record-selected' AND details ? 'operationId' AND details->>'operationId' = $1`,
    [id],
  );
  const created = await count(
    client,
    `SELECT count(*) AS n FROM decision_log
      WHERE action = 'operation.created' AND details ? 'operationId' AND details->>'operationId' = $1`,
    [id],
  );
  // Within a key the sequences must be dispatched in ascending order (they arrived rotated).
  const outOfOrder = await count(
    client,
    `SELECT count(*) AS n FROM (
       SELECT sequence, lag(sequence) OVER (PARTITION BY sequence_key ORDER BY position) AS previous
         FROM bulk_operation_items WHERE operation_id = $1) AS ordered
      WHERE previous >= sequence`,
    [id],
  );
  const ok = op.total === expected && items === expected && selected === expected && created === 1 && outOfOrder === 0;
  console.log(
    `  total ${n(op.total)}, items ${n(items)}, operation.record-selected entries ${n(selected)}, ` +
      `operation.created entries ${created}, keys out of sequence order ${outOfOrder}: ` +
      `${ok ? "as expected" : `EXPECTED ${n(expected)} / 1 / 0`}`,
  );
  if (!ok) throw new Error("the freeze's counts are wrong");
  return { id, ms: took };
}

/** dryRunOperation, timed; returns the counts it stored on the operation. */
async function dryRun(client: pg.Client, id: string) {
  const { ms: took } = await timed(() => dryRunOperation(id, ACTOR));
  const op = await operation(client, id);
  if (!op.dry_run) throw new Error("the dry run stored no counts");
  const judged = await count(
    client,
    "SELECT count(*) AS n FROM bulk_operation_items WHERE operation_id = $1 AND verdict IS NOT NULL",
    [id],
  );
  return { ms: took, counts: op.dry_run.counts, judged };
}

async function confirm(client: pg.Client, id: string): Promise<number> {
  const op = await operation(client, id);
  const { ms: took } = await timed(() =>
    confirmOperation(id, { expectedVersion: op.version, dryRunAt: op.dry_run!.at, checkDone: true }, ACTOR),
  );
  const after = await operation(client, id);
  if (after.state !== "running") throw new Error(`confirm left the operation ${after.state}`);
  return took;
}

interface Sample {
  dispatched: number;
  /** The database's clock, seconds since the epoch. */
  at: number;
}

async function sample(client: pg.Client, id: string): Promise<Sample> {
  const { rows } = await client.query<{ dispatched: number; at: number }>(
    "SELECT dispatched, extract(epoch FROM clock_timestamp())::float8 AS at FROM bulk_operations WHERE id = $1",
    [id],
  );
  return rows[0]!;
}

interface RateResult {
  target: number;
  counter: number;
  items: number;
  deviation: number;
  holds: boolean;
  dispatched: number;
  gaps: { p50: number; p95: number; max: number };
  replays: number;
  logged: number;
}

/**
 * Runs the console's dispatcher loop (the operation is the only one running) for WARMUP_S +
 * WINDOW_S and measures the rate over the window after the warm-up.
 */
async function dispatchAt(client: pg.Client, id: string, target: number): Promise<RateResult> {
  const controller = new AbortController();
  const loop = runDispatcher({ signal: controller.signal });
  let s0: Sample;
  let s1: Sample;
  try {
    await sleep(WARMUP_S * 1000);
    s0 = await sample(client, id);
    await sleep(WINDOW_S * 1000);
    s1 = await sample(client, id);
  } finally {
    controller.abort();
    await loop;
  }
  const counter = (s1.dispatched - s0.dispatched) / (s1.at - s0.at);
  // Each dispatched item's updated_at is its transaction's start: n dispatches span n - 1 intervals.
  const { rows } = await client.query<{ n: string; span: number | null }>(
    `SELECT count(*) AS n, extract(epoch FROM max(updated_at) - min(updated_at))::float8 AS span
       FROM bulk_operation_items
      WHERE operation_id = $1 AND state = 'dispatched' AND updated_at > to_timestamp($2) AND updated_at <= to_timestamp($3)`,
    [id, s0.at, s1.at],
  );
  const inWindow = Number(rows[0]!.n);
  const items = rows[0]!.span ? (inWindow - 1) / rows[0]!.span : 0;
  const { rows: gapRows } = await client.query<{ gap: number }>(
    `SELECT extract(epoch FROM updated_at - lag(updated_at) OVER (ORDER BY updated_at, position))::float8 * 1000 AS gap
       FROM bulk_operation_items
      WHERE operation_id = $1 AND state = 'dispatched' AND updated_at > to_timestamp($2) AND updated_at <= to_timestamp($3)`,
    [id, s0.at, s1.at],
  );
  const gaps = gapRows.map((r) => r.gap).filter((g): g is number => g !== null);
  const dispatched = (await operation(client, id)).dispatched;
  const replays = await count(client, "SELECT count(*) AS n FROM replays WHERE operation_id = $1", [id]);
  const logged = await count(
    client,
    `SELECT count(*) AS n FROM decision_log
      WHERE action = 'review.replay' AND details ? 'operationId' AND details->>'operationId' = $1`,
    [id],
  );
  const deviation = (counter - target) / target;
  return {
    target,
    counter,
    items,
    deviation,
    holds: Math.abs(deviation) <= RATE_TOLERANCE,
    dispatched,
    gaps: gaps.length ? summarize(gaps) : { p50: 0, p95: 0, max: 0 },
    replays,
    logged,
  };
}

function verdictTable(counts: Record<string, number>, expected: Record<string, number>): string {
  const names = [...new Set([...Object.keys(expected), ...Object.keys(counts)])];
  return table(
    ["verdict", "count", "expected"],
    names.map((name) => [name, n(counts[name] ?? 0), n(expected[name] ?? 0)]),
  );
}

const pct = (value: number) => `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)}%`;
const verdict = (holds: boolean) => (holds ? "PASS" : "FAIL");

async function main() {
  await withBenchDatabase("rc_bench_bulk", async (url) => {
    await seed(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const mainGroup = { type: "group" as const, group: MAIN_CAUSE };
      const secondGroup = { type: "group" as const, group: SECOND_CAUSE };

      console.log(`\n(a) freeze: createOperation over the cause ${JSON.stringify(MAIN_CAUSE)}`);
      const big = await freeze(client, mainGroup, RATES[0], RECORDS);
      console.log(`  ${seconds(big.ms)} s, ${n(Math.round(RECORDS / (big.ms / 1000)))} records/s`);

      console.log(`\n(b) dry run of the ${n(RECORDS)} records`);
      const bigDry = await dryRun(client, big.id);
      const expected = expectedVerdicts(KEYS);
      console.log(`  ${seconds(bigDry.ms)} s, ${n(Math.round(RECORDS / (bigDry.ms / 1000)))} records/s`);
      console.log(
        verdictTable(bigDry.counts, expected)
          .split("\n")
          .map((line) => `  ${line}`)
          .join("\n"),
      );
      const verdictsMatch =
        Object.entries(expected).every(([name, value]) => bigDry.counts[name] === value) &&
        Object.keys(bigDry.counts).every((name) => name in expected);
      console.log(
        `  ${n(bigDry.judged)} items carry a verdict; the counts ${verdictsMatch ? "match" : "DO NOT MATCH"} the seed's`,
      );

      console.log(`\n(c) confirm`);
      const confirmMs = await confirm(client, big.id);
      console.log(`  ${ms(confirmMs)} ms; the operation is running`);

      console.log(`\n(d) dispatch through runDispatcher: ${WARMUP_S} s warm-up, then a ${WINDOW_S} s window`);
      const results: RateResult[] = [];
      console.log(`  ${RATES[0]}/s: the ${n(RECORDS)}-record operation`);
      results.push(await dispatchAt(client, big.id, RATES[0]));
      await pauseOperation(big.id, "bench: measuring the next rate on another operation", ACTOR);

      console.log(`  ${RATES[1]}/s: a second operation over ${JSON.stringify(SECOND_CAUSE)}`);
      const small = await freeze(client, secondGroup, RATES[1], SECOND_RECORDS);
      const smallDry = await dryRun(client, small.id);
      await confirm(client, small.id);
      console.log(
        `  (its freeze ${ms(small.ms)} ms, dry run ${ms(smallDry.ms)} ms: ${JSON.stringify(smallDry.counts)})`,
      );
      results.push(await dispatchAt(client, small.id, RATES[1]));
      await pauseOperation(small.id, "bench: measuring the ceiling", ACTOR);

      // No target: how fast one dispatcher can go here, for comparison with other tools' redrives.
      // (The rate of an operation is set when it is created; the bench raises it behind the API.)
      await client.query(`UPDATE bulk_operations SET rate_per_second = $2 WHERE id = $1`, [big.id, CEILING_RATE]);
      await resumeOperation(big.id, { reason: "bench: the ceiling" }, ACTOR);
      const ceiling = await dispatchAt(client, big.id, CEILING_RATE);

      console.log();
      console.log(
        table(
          [
            "target/s",
            "achieved/s (counter)",
            "achieved/s (items)",
            "deviation",
            "within 10%",
            "gap p50 ms",
            "gap p95 ms",
            "gap max ms",
            "dispatched",
            "replays",
            "log entries",
          ],
          results.map((r) => [
            String(r.target),
            r.counter.toFixed(2),
            r.items.toFixed(2),
            pct(r.deviation),
            r.holds ? "yes" : "NO",
            ms(r.gaps.p50),
            ms(r.gaps.p95),
            ms(r.gaps.max),
            n(r.dispatched),
            n(r.replays),
            n(r.logged),
          ]),
        ),
      );
      console.log(
        "  counter: the operation's `dispatched` over the window (database clock); items: the dispatched\n" +
          "  items' updated_at in the window; gap: between consecutive dispatches; dispatched, replays and\n" +
          "  log entries (review.replay) are the operation's totals, warm-up included, and must agree",
      );
      for (const r of results) {
        if (r.holds || r.counter > r.target) continue;
        const interval = 1000 / r.target;
        console.log(
          `  at ${r.target}/s: below target with a median gap of ${ms(r.gaps.p50)} ms against the ${ms(interval)} ms ` +
            `the rate allows: ${r.gaps.p50 < interval ? "the dispatcher ran flat out and could not keep up" : "it waited too long between steps"}`,
        );
      }
      for (const r of results) {
        if (r.replays !== r.dispatched || r.logged !== r.dispatched) {
          throw new Error(
            `at ${r.target}/s: ${r.dispatched} dispatched, ${r.replays} replays, ${r.logged} log entries`,
          );
        }
      }

      const freezeHolds = big.ms < FREEZE_TARGET_S * 1000;
      const dryHolds = bigDry.ms < DRY_RUN_TARGET_S * 1000;
      const rows = [
        [`freeze of ${n(RECORDS)} records < ${FREEZE_TARGET_S} s`, `${seconds(big.ms)} s`, verdict(freezeHolds)],
        [`dry run of ${n(RECORDS)} records < ${DRY_RUN_TARGET_S} s`, `${seconds(bigDry.ms)} s`, verdict(dryHolds)],
        ...results.map((r) => [
          `dispatch at ${r.target}/s within ${RATE_TOLERANCE * 100}%`,
          `${r.counter.toFixed(2)}/s (${pct(r.deviation)})`,
          verdict(r.holds),
        ]),
      ];
      console.log(
        `\nceiling: set to ${CEILING_RATE}/s, one dispatcher achieved ${ceiling.counter.toFixed(0)} records/s ` +
          `(replays ${n(ceiling.replays)} = log entries ${n(ceiling.logged)} = dispatched ${n(ceiling.dispatched)})`,
      );
      console.log(`\nsummary\n`);
      console.log(table(["target", "measured", "result"], rows));
      const all = freezeHolds && dryHolds && results.every((r) => r.holds);
      console.log(all ? "\nall targets hold" : "\nSOME TARGETS MISSED");
    } finally {
      await client.end();
    }
  });
}

await main();
