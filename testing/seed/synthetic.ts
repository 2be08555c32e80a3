import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * Synthetic review records for benchmarks and load tests (`review-console seed --records N`).
 *
 * The rows are generated inside PostgreSQL, one `INSERT .. SELECT .. FROM generate_series` per
 * chunk, so a million records cost a few dozen statements instead of a million round trips.
 * They look like what intake writes (the same envelope shape and indexed columns), but they are
 * load, not evidence: no history rows and no decision-log entries are written for them, so
 * `audit verify` and the log are unaffected. Do not seed a production database.
 */

export interface SeedOptions {
  /** Rows per INSERT statement (all of them run in one transaction). */
  batchSize?: number;
  /** Called after each chunk with the number of records inserted so far (committed at the end). */
  onProgress?: (done: number) => void;
  /**
   * Benchmarks of queries that never search (bench:scale) may leave the trigram search index out
   * when the seed rebuilds the indexes: most of the build time at 10,000,000 records. The list's
   * `q` then scans the table. Never for a database anyone searches.
   */
  withoutSearchIndex?: boolean;
}

export const DEFAULT_SEED_BATCH = 50_000;

const SPREAD_MS = 30 * 24 * 60 * 60 * 1000;

/*
 * Parameters: $1, $2 the range of g (1-based row numbers of this run), $3 the run tag that keeps
 * message ids unique across runs, $4 the first first_seen_at, $5 milliseconds between rows.
 *
 * One 63-bit hash of g is cut into independent digits (kind, category, status, ...), so the mix
 * is the same on every run and has no visible period. Records are generated in g order and seq is
 * assigned in that order, so first_seen_at rises with seq as it does for real intake.
 */
const SEED_SQL = `
WITH rolled AS (
  SELECT g, h,
    'msg-' || $3::text || '-' || g AS message_id,
    (h % 4)::int AS k,
    (h / 4 % 100)::int AS category_roll,
    (h / 400 % 100)::int AS status_roll,
    (h / 40000 % 6)::int AS manual_reason,
    (1 + h / 240000 % 5)::int AS attempts,
    (1 + h / 1200000 % 3)::int AS report_count,
    -- About three records per business object, so sequence keys repeat as they do in practice.
    100000 + g / 3 AS entity,
    (h / 3600000 % 1000)::int AS amount
  FROM generate_series($1::bigint, $2::bigint) AS g,
       -- Masked rather than abs(): abs() of the smallest bigint overflows.
       LATERAL (SELECT hashint8extended(g, 727) & 9223372036854775807 AS h) AS hashed
), classified AS (
  SELECT *,
    CASE WHEN category_roll < 55 THEN 'manual-review'
         WHEN category_roll < 80 THEN 'sequence-gap'
         ELSE 'effect-result-unknown' END AS category,
    CASE WHEN status_roll < 70 THEN 'open'
         WHEN status_roll < 88 THEN 'resolved'
         WHEN status_roll < 95 THEN 'cancelled'
         ELSE 'replay-scheduled' END AS status,
    (ARRAY['invoice.reminder', 'card.charge', 'access.grant', 'email.send'])[k + 1] AS kind,
    (ARRAY['invoice-', 'order-', 'user-', 'mailbox-'])[k + 1] || entity AS sequence_key
  FROM rolled
), keyed AS (
  SELECT *,
    CASE category
      WHEN 'sequence-gap' THEN 'sequence-gap'
      WHEN 'effect-result-unknown' THEN 'effect-result-unknown'
      ELSE (ARRAY['invalid-contract', 'unsupported-schema', 'invalid-payload', 'stale-or-conflicting',
                  'retry-limit', 'provider-rejected'])[manual_reason + 1]
    END AS reason,
    -- A gap is a sequence that arrived early; everything else is near the start of its key.
    CASE WHEN category = 'sequence-gap' THEN 3 + g % 12 ELSE 1 + g % 3 END AS sequence
  FROM classified
), enveloped AS (
  SELECT *,
    CASE k
      WHEN 0 THEN 'invoice-' || entity || ':reminder-' || sequence
      WHEN 1 THEN 'charge-' || entity || '-' || sequence
      WHEN 2 THEN 'grant-' || entity || ':project-' || entity % 97
      ELSE 'email-' || entity || '-' || sequence
    END AS full_effect_key,
    CASE WHEN reason = 'unsupported-schema' THEN '2019-07'
         ELSE (ARRAY['2021-03', '2022-01', '2023-05', '2020-11'])[k + 1] END AS payload_schema,
    (ARRAY['invoiceId', 'orderId', 'userId', 'to'])[k + 1] AS main_field,
    CASE WHEN reason = 'invalid-payload' THEN ''
         ELSE (ARRAY['', '', '', 'user-'])[k + 1] || entity || (ARRAY['', '', '', '@example.com'])[k + 1]
    END AS main_value
  FROM keyed
), shaped AS (
  SELECT *,
    -- An invalid contract is a producer that left out the effect key.
    CASE WHEN reason = 'invalid-contract' THEN NULL ELSE full_effect_key END AS effect_key,
    '{"id":"' || message_id || '","kind":"' || kind || '"'
      || CASE WHEN reason = 'invalid-contract' THEN '' ELSE ',"effectKey":"' || full_effect_key || '"' END
      || ',"sequenceKey":"' || sequence_key || '","sequence":' || sequence
      || ',"payload":{"schema":"' || payload_schema || '","' || main_field || '":"' || main_value || '"'
      || CASE k
           WHEN 0 THEN ',"channel":"email","dueDays":' || amount % 30
           WHEN 1 THEN ',"amountCents":' || (amount + 1) * 125 || ',"currency":"EUR"'
           WHEN 2 THEN ',"resource":"project-' || entity % 97 || '","level":"write"'
           ELSE ',"template":"' || (ARRAY['welcome', 'password-reset', 'receipt'])[1 + amount % 3] || '"'
         END
      || '}}' AS message,
    -- Phrased like consumers report errors; contract and payload problems carry no error text.
    CASE reason
      WHEN 'effect-result-unknown' THEN 'ETIMEDOUT after 30000 ms: POST https://provider.example/'
        || replace(kind, '.', '/')
      WHEN 'retry-limit' THEN 'dependency-not-ready: upstream answered 503 for ' || sequence_key
      WHEN 'provider-rejected' THEN '422 ' || main_field || ' rejected by the provider'
    END AS last_error,
    $4::timestamptz + (g - 1) * $5::float8 * interval '1 millisecond' AS first_seen_at
  FROM enveloped
)
INSERT INTO review_records (status, category, reason, required_check, attempts, report_count, last_error,
    error_class, message, message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source,
    version, first_seen_at, last_seen_at, updated_at)
SELECT status::"ReviewStatus", category::"ReviewCategory", reason,
    CASE reason
      WHEN 'sequence-gap' THEN 'find message ' || sequence - 1 || ' of ' || sequence_key
      WHEN 'effect-result-unknown' THEN 'ask the provider whether effect ' || full_effect_key || ' was sent'
      WHEN 'invalid-contract' THEN 'supply effectKey (a non-empty string) in the envelope of message ' || message_id
      WHEN 'unsupported-schema' THEN 'check payload schema 2019-07 of kind ' || kind || ': supported versions are '
        || (ARRAY['2021-03', '2022-01', '2023-05', '2020-11'])[k + 1]
      WHEN 'invalid-payload' THEN 'correct payload.' || main_field || ' of message ' || message_id
        || ' (' || kind || ' schema ' || payload_schema || ')'
      WHEN 'stale-or-conflicting' THEN 'compare sequence ' || sequence || ' of ' || sequence_key
        || ' with the applied sequence ' || sequence + 1
      WHEN 'retry-limit' THEN 'find out why ' || kind || ' keeps failing for ' || sequence_key || ' before replaying it'
      ELSE 'check why the provider rejected ' || full_effect_key || ' and correct the payload'
    END,
    attempts, report_count,
    -- Classed as intake classes them: ETIMEDOUT, dependency-not-ready, 422.
    last_error, public.review_error_class(last_error),
    message::json, 'id:' || message_id, message_id, kind, effect_key, sequence_key, sequence, payload_schema,
    jsonb_build_object('transport', (ARRAY['redis-streams', 'rabbitmq', 'kafka'])[1 + g % 3],
                       'queue', replace(kind, '.', '-'),
                       'consumer', 'worker-' || 1 + amount % 8,
                       'transportId', (1764460800000 + g) || '-0'),
    report_count + CASE WHEN status = 'open' THEN 0 ELSE 1 END,
    first_seen_at,
    first_seen_at + (report_count - 1) * interval '7 minutes',
    first_seen_at + (report_count - 1) * interval '7 minutes'
      + CASE WHEN status = 'open' THEN interval '0' ELSE interval '3 hours' END
  FROM shaped
  ORDER BY g`;

interface IndexDefinition {
  name: string;
  definition: string;
}

/*
 * Maintaining the ten secondary indexes row by row is most of the cost of a bulk load, the
 * trigram (search) index most of all: 8-11 s per 50,000 rows here, against under 1 s for the
 * rows themselves and about 3.5 s per 50,000 for building all the indexes once afterwards. So
 * when the seed at least doubles the table, its secondary indexes are dropped and rebuilt from
 * their own definitions (pg_get_indexdef, so they cannot drift from the migration). Constraint
 * indexes (the primary key the foreign keys point at) stay.
 */
const REBUILD_MIN_RECORDS = 50_000;
const SEARCH_INDEX = "review_records_search_trgm";

async function secondaryIndexes(client: pg.Client): Promise<IndexDefinition[]> {
  const { rows } = await client.query<IndexDefinition>(`
    SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
      FROM pg_index i
      JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_am am ON am.oid = c.relam
     WHERE i.indrelid = 'review_records'::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
     -- The slow GIN build last, so a failing B-tree (a duplicate message) fails fast.
     ORDER BY am.amname = 'gin', c.relname`);
  return rows;
}

/** true when the table holds fewer rows than the seed adds; counts at most `limit` rows. */
async function isSmallerThan(client: pg.Client, limit: number): Promise<boolean> {
  const { rows } = await client.query<{ n: string }>(
    "SELECT count(*) AS n FROM (SELECT 1 FROM review_records LIMIT $1) AS existing",
    [limit],
  );
  return Number(rows[0]?.n ?? 0) < limit;
}

/**
 * Inserts `count` synthetic records, newest last, with first_seen_at spread over the 30 days up
 * to now. Returns how many rows were inserted and how long it took, index builds and ANALYZE
 * included.
 *
 * All of it is one transaction: a failure leaves the table as it was. When the indexes are
 * rebuilt, that transaction holds an exclusive lock on review_records until it commits, so
 * readers and intake wait: seed before the load test, not during one.
 */
export async function seedSyntheticRecords(
  connectionString: string,
  count: number,
  options: SeedOptions = {},
): Promise<{ inserted: number; ms: number }> {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`count must be a whole number >= 0, got ${count}`);
  const batchSize = options.batchSize ?? DEFAULT_SEED_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be >= 1, got ${batchSize}`);

  const started = performance.now();
  // Unique per run, so seeding twice never collides on the active-message index.
  const tag = randomBytes(4).toString("hex");
  const firstSeen = new Date(Date.now() - SPREAD_MS);
  const stepMs = count > 1 ? SPREAD_MS / (count - 1) : 0;

  const client = new pg.Client({ connectionString });
  // A lost connection also rejects the running query, which is where it is reported; without a
  // listener the client's 'error' event would crash the process first.
  client.on("error", () => {});
  await client.connect();
  let inserted = 0;
  try {
    // Session settings only. Load data may be lost in a server crash (it is regenerated). With
    // 512MB the trigram index of a million records builds in about 60 s here, with 64MB in 85 s.
    await client.query("SET synchronous_commit = off");
    await client.query("SET work_mem = '64MB'");
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query("BEGIN");
    const rebuild = count >= REBUILD_MIN_RECORDS && (await isSmallerThan(client, count));
    const indexes = rebuild ? await secondaryIndexes(client) : [];
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    for (let lo = 1; lo <= count; lo += batchSize) {
      const hi = Math.min(count, lo + batchSize - 1);
      const result = await client.query(SEED_SQL, [lo, hi, tag, firstSeen.toISOString(), stepMs]);
      inserted += result.rowCount ?? 0;
      options.onProgress?.(inserted);
    }
    for (const index of indexes) {
      if (options.withoutSearchIndex && index.name === SEARCH_INDEX) continue;
      await client.query(index.definition);
    }
    await client.query("COMMIT");
    // Fresh statistics, so the planner sees the new distribution before the first list query.
    await client.query("ANALYZE review_records");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  return { inserted, ms: Math.round(performance.now() - started) };
}
