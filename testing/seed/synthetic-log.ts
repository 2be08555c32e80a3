import pg from "pg";
import { entryHash, formatEntryTime, GENESIS_HASH } from "@/lib/audit";
import { copyFrom } from "@/lib/db/copy-from";

/**
 * Synthetic decision-log entries for benchmarks (`review-console seed --log-entries N`): a valid
 * hash chain, continued from the log's head, that `audit verify` accepts.
 *
 * The chain is sequential (each hash covers the previous one), so it cannot be computed set-based
 * in SQL; the chaining trigger would do it row by row with two index probes each (about half an
 * hour for 30,000,000 entries here). Instead this process computes every hash with the verifier's
 * own function (lib/audit/verify.ts: the same text, so the same hash as the SQL function) and
 * streams the rows into one `COPY` with the log's triggers switched off, in one transaction as the
 * tables' owner: `ALTER TABLE .. DISABLE TRIGGER USER` on decision_log and its head, the rows, the
 * head moved to the last one, the triggers on again, commit. A failure rolls all of it back.
 *
 * `at` rises with `seq` (as the trigger makes it, so decision_log_time_order stays true), spread
 * evenly over `spanMs` up to now, starting after the last existing entry. The entries look like
 * the console's (reports, actions, replays, operation items, refusals), with a record id on most
 * of them; they are load, not evidence. Do not seed a production database: the table is locked
 * exclusively while it runs.
 */

export interface LogSeedOptions {
  /** The entries are spread evenly over this many milliseconds up to now (default 90 days). */
  spanMs?: number;
  /** Called every 100,000 entries with the number streamed so far (committed at the end). */
  onProgress?: (done: number) => void;
  /** Drop and rebuild the log's indexes around the copy; by default when the seed at least doubles the log. */
  rebuildIndexes?: boolean;
}

const DEFAULT_SPAN_MS = 90 * 24 * 60 * 60 * 1000;
const ROWS_PER_CHUNK = 2000;
const PROGRESS_EVERY = 100_000;
/** Indexes are dropped and rebuilt when the seed at least doubles the log, as for the records. */
const REBUILD_MIN_ENTRIES = 50_000;

const ACTIONS = [
  "review.reported",
  "review.reported",
  "review.reported-again",
  "review.replay",
  "replay.applied",
  "review.cancel",
  "review.note",
  "operation.record-selected",
  "auth.refused",
  "review.resolve",
] as const;

const ACTORS = ["token:orders-worker", "token:billing-worker", "user:owner@example.com", "user:support@example.com"];
const ROLES = ["consumer", "consumer", "owner", "support"];

/** A record id per entry: about three entries per record, so per-record filters find a few. */
function reviewIdOf(seq: bigint): string {
  const hex = (seq / 3n).toString(16).padStart(12, "0");
  return `00000000-0000-4000-8000-${hex.slice(-12)}`;
}

/** YYYY-MM (UTC) of a time in microseconds since the epoch. */
const monthOf = (micros: bigint) => new Date(Number(micros / 1000n)).toISOString().slice(0, 7);

/** "2026-12" -> "2027-01". */
function nextMonth(month: string): string {
  const [year, m] = month.split("-").map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, "0")}`;
}

/** Microseconds since the epoch as extract(epoch FROM at)::text renders them: what the hash takes. */
function epochText(micros: bigint): string {
  return `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, "0")}`;
}

interface Head {
  seq: bigint;
  hash: string;
  /** `at` of the last entry in microseconds since the epoch; null for an empty log. */
  atMicros: bigint | null;
}

async function readHead(client: pg.Client): Promise<Head> {
  const { rows } = await client.query<{ seq: string; hash: string; at: string | null }>(
    `SELECT h.last_seq::text AS seq, h.last_hash AS hash,
            (SELECT (extract(epoch FROM l.at) * 1000000)::bigint::text FROM decision_log l WHERE l.seq = h.last_seq) AS at
       FROM decision_log_head h WHERE h.id = 1`,
  );
  const head = rows[0];
  if (!head) throw new Error("decision_log_head is missing: is the database migrated?");
  return {
    seq: BigInt(head.seq),
    hash: head.hash ?? GENESIS_HASH,
    atMicros: head.at === null ? null : BigInt(head.at),
  };
}

/** The rows, in COPY's text format, chained from `head`. */
async function* logRows(
  head: Head,
  count: number,
  firstMicros: bigint,
  stepMicros: bigint,
  onProgress?: (done: number) => void,
): AsyncGenerator<string> {
  let previousHash = head.hash;
  let lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const seq = head.seq + 1n + BigInt(i);
    const micros = firstMicros + BigInt(i) * stepMicros;
    const action = ACTIONS[i % ACTIONS.length]!;
    const who = i % ACTORS.length;
    const refused = action === "auth.refused";
    const reviewId = refused ? null : reviewIdOf(seq);
    const effectKey = action === "review.replay" || action === "replay.applied" ? `effect-${seq / 3n}` : null;
    const reason = action === "review.cancel" || action === "review.resolve" ? "checked with the provider" : null;
    // jsonb's own text (key order and spacing), which is what the hash covers.
    const details = action.startsWith("review.reported")
      ? `{"attempts": ${1 + (i % 5)}, "category": "manual-review"}`
      : action === "operation.record-selected"
        ? `{"operationId": "00000000-0000-4000-9000-${(seq / 100_000n).toString(16).padStart(12, "0").slice(-12)}"}`
        : null;
    const fields = {
      prevHash: previousHash,
      seq: seq.toString(),
      atEpoch: epochText(micros),
      actor: ACTORS[who]!,
      actorRole: ROLES[who]!,
      action,
      reviewId,
      effectKey,
      reason,
      details,
    };
    const hash = entryHash(fields);
    // The very text the hash covers, so the stored instant and the hashed one cannot differ.
    const at = formatEntryTime(fields.atEpoch);
    const nul = (v: string | null) => v ?? "\\N";
    lines.push(
      [
        seq,
        at,
        fields.actor,
        fields.actorRole,
        action,
        nul(reviewId),
        nul(effectKey),
        nul(reason),
        nul(details),
        previousHash,
        hash,
      ].join("\t"),
    );
    previousHash = hash;
    if (lines.length === ROWS_PER_CHUNK) {
      yield lines.join("\n") + "\n";
      lines = [];
    }
    if ((i + 1) % PROGRESS_EVERY === 0) onProgress?.(i + 1);
  }
  if (lines.length) yield lines.join("\n") + "\n";
  if (count % PROGRESS_EVERY !== 0) onProgress?.(count);
}

/**
 * Every index of the partitioned log is valid and present on every partition, as the migrations
 * leave it; throws naming the first that is not (a seed must not measure a database production
 * never has).
 */
export async function assertPartitionsIndexed(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ partition: string; index: string }>(
    `SELECT p.inhrelid::regclass::text AS partition, pi.indexrelid::regclass::text AS index
       FROM pg_inherits p
       JOIN pg_index pi ON pi.indrelid = 'decision_log'::regclass
      WHERE p.inhparent = 'decision_log'::regclass
        AND NOT EXISTS (
          SELECT 1 FROM pg_inherits ci JOIN pg_index c ON c.indexrelid = ci.inhrelid
           WHERE ci.inhparent = pi.indexrelid AND c.indrelid = p.inhrelid AND c.indisvalid)
     UNION ALL
     SELECT 'decision_log', indexrelid::regclass::text FROM pg_index
      WHERE indrelid = 'decision_log'::regclass AND NOT indisvalid
      LIMIT 1`,
  );
  const missing = rows[0];
  if (missing)
    throw new Error(`the decision log's index ${missing.index} is missing or invalid on ${missing.partition}`);
}

/**
 * Appends `count` chained entries after the log's head. Returns how many and how long it took
 * (index builds and ANALYZE included).
 */
export async function seedSyntheticLogEntries(
  connectionString: string,
  count: number,
  options: LogSeedOptions = {},
): Promise<{ inserted: number; ms: number }> {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`count must be a whole number >= 0, got ${count}`);
  const started = performance.now();
  const client = new pg.Client({ connectionString });
  client.on("error", () => {});
  await client.connect();
  let inserted = 0;
  try {
    await client.query("SET synchronous_commit = off");
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query("BEGIN");
    // Appends wait from here to the commit: the head cannot move under us.
    await client.query("LOCK TABLE decision_log, decision_log_head IN ACCESS EXCLUSIVE MODE");
    const head = await readHead(client);
    const nowMicros = BigInt(Date.now()) * 1000n;
    const spanMicros = BigInt(Math.round(options.spanMs ?? DEFAULT_SPAN_MS)) * 1000n;
    const afterHead = head.atMicros === null ? null : head.atMicros + 1n;
    const firstMicros = afterHead !== null && afterHead > nowMicros - spanMicros ? afterHead : nowMicros - spanMicros;
    const room = nowMicros - firstMicros;
    const stepMicros = count > 1 && room > BigInt(count) ? room / BigInt(count) : 1n;

    const { rows: existing } = await client.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM (SELECT 1 FROM decision_log LIMIT $1) AS e",
      [count],
    );
    const rebuild = options.rebuildIndexes ?? (count >= REBUILD_MIN_ENTRIES && Number(existing[0]?.n ?? 0) < count);
    const { rows: indexes } = rebuild
      ? await client.query<{ name: string; definition: string }>(
          `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
             FROM pg_index i WHERE i.indrelid = 'decision_log'::regclass
              AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
        )
      : { rows: [] };
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);

    // The log is partitioned by month (20261201050000): each month the entries fall in gets its
    // partition first, or they would land in decision_log_default and could not be archived.
    for (let month = monthOf(firstMicros); month <= monthOf(nowMicros); month = nextMonth(month)) {
      await client.query("SELECT decision_log_create_month($1::timestamptz)", [`${month}-15T00:00:00Z`]);
    }
    await client.query("ALTER TABLE decision_log DISABLE TRIGGER USER");
    await client.query("ALTER TABLE decision_log_head DISABLE TRIGGER USER");
    inserted = await copyFrom(
      client,
      `COPY decision_log (seq, at, actor, actor_role, action, review_id, effect_key, reason, details, prev_hash, hash)
         FROM STDIN`,
      logRows(head, count, firstMicros, stepMicros, options.onProgress),
    );
    if (inserted > 0) {
      await client.query(
        `UPDATE decision_log_head SET last_seq = l.seq, last_hash = l.hash
           FROM (SELECT seq, hash FROM decision_log WHERE seq = $1::bigint) AS l WHERE id = 1`,
        [(head.seq + BigInt(inserted)).toString()],
      );
    }
    await client.query("ALTER TABLE decision_log_head ENABLE TRIGGER USER");
    await client.query("ALTER TABLE decision_log ENABLE TRIGGER USER");
    // pg_get_indexdef of a partitioned table's index says `ON ONLY`, which builds the parent's
    // index alone: every partition would be left with its primary key only (the chain's
    // `ORDER BY at DESC LIMIT 1` became a scan of every row). Built without ONLY, it cascades.
    for (const index of indexes) await client.query(index.definition.replace(/ ON ONLY /, " ON "));
    await assertPartitionsIndexed(client);
    await client.query("COMMIT");
    await client.query("ANALYZE decision_log");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  return { inserted, ms: Math.round(performance.now() - started) };
}
