import { createHash } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { config, loadConfig } from "@/lib/config";

/*
 * Retention of finished review records (docs/decisions/0024-finished-record-partitions.md).
 *
 * `review-console archive` takes every finished record (resolved or cancelled) whose month is
 * before the cutoff out of the live tables, month by month:
 *
 * 1. move: in short transactions, lock a batch of finished records, copy each with its history,
 *    revisions, replays and bulk-operation items into its month's native partition of
 *    finished_records (created on demand), remember its id in archived_review_records, and delete
 *    the live rows. The count triggers (ADR 0016, 0020) take them out of stats, group counts and
 *    metrics in the same transaction. Open records (open, replay-scheduled, replaying) are never
 *    selected; nor is a finished record that a running bulk operation or a pending replay still
 *    holds (a later run takes it).
 * 2. write: each attached partition to `finished-records-YYYY-MM.ndjson` (a later part of a month:
 *    `.partN`), through a temporary file that is fsynced, renamed and whose directory is fsynced.
 * 3. detach: in one transaction, record the file (finished_record_archives), append a
 *    `records.archived` entry to the decision log, detach the partition and drop it.
 *
 * A crash leaves either live rows (step 1 is transactional) or an attached partition, which the
 * next run writes again from the start and detaches: re-running is how a crash is recovered, and a
 * run with nothing to do changes nothing. Runs are serialised by an advisory lock.
 *
 * It needs the owner's connection (MIGRATION_DATABASE_URL): it creates, detaches and drops
 * partitions, which the runtime role may not.
 */

/** The months a record is finished in; everything else is open and stays live. */
export const FINISHED_STATUSES = ["resolved", "cancelled"] as const;

const ARCHIVE_LOCK_KEY = 727_024;
const MOVE_BATCH = 500;
const WRITE_BATCH = 1000;

export interface ArchiveFinishedOptions {
  /** `YYYY-MM`: archive finished records of the months before it. Default: the retention cutoff. */
  before?: string;
  /** Where the NDJSON files go (created if missing). */
  dir: string;
  /** Months finished records stay live; default RETENTION_FINISHED_MONTHS, else 12. Ignored with `before`. */
  retentionMonths?: number;
  /** The clock, for tests. */
  now?: Date;
  /** Records moved per transaction. */
  batchSize?: number;
}

export interface ArchivedMonth {
  /** `YYYY-MM`. */
  month: string;
  /** 1 for the month's first file; a month's records held back by a running operation come later. */
  part: number;
  /** The file's path (`dir` joined with its name). */
  file: string;
  records: number;
  sha256: string;
}

export interface ArchiveFinishedResult {
  /** The cutoff used: months before it were archived. */
  before: string;
  months: ArchivedMonth[];
  /** Finished records before the cutoff left live because a running operation or pending replay holds them. */
  heldBack: number;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `YYYY-MM` of a moment, in UTC. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** `month` moved by `delta` months. */
export function addMonths(month: string, delta: number): string {
  const [, year, mm] = MONTH.exec(month)!;
  const index = Number(year) * 12 + (Number(mm) - 1) + delta;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}`;
}

/**
 * The retention setting, RETENTION_FINISHED_MONTHS, of `env` as lib/config reads it: a whole
 * number of months, at least 1 (the current month is never over).
 */
export function retentionMonthsFromEnv(env: Record<string, string | undefined>): number {
  return loadConfig(env).RETENTION_FINISHED_MONTHS;
}

/**
 * The cutoff month: `before` as given (`YYYY-MM`, not after the current month, whose records
 * may still change), else the current month minus the retention.
 */
export function finishedRecordsCutoff(
  options: Pick<ArchiveFinishedOptions, "before" | "retentionMonths" | "now">,
): string {
  const current = monthOf(options.now ?? new Date());
  if (options.before !== undefined) {
    if (!MONTH.test(options.before)) throw new Error(`--before must be a month, YYYY-MM (got "${options.before}")`);
    if (options.before > current) {
      throw new Error(`--before ${options.before} is after the current month ${current}: that month is not over`);
    }
    return options.before;
  }
  const months = options.retentionMonths ?? config().RETENTION_FINISHED_MONTHS;
  if (!Number.isInteger(months) || months < 1)
    throw new Error(`the retention must be at least 1 month (got ${months})`);
  return addMonths(current, -months);
}

/** `finished-records-2026-01.ndjson`, later parts `finished-records-2026-01.part2.ndjson`. */
export function archiveFileName(month: string, part: number): string {
  return part === 1 ? `finished-records-${month}.ndjson` : `finished-records-${month}.part${part}.ndjson`;
}

/** The partition of a month: `finished_records_2026_01` (months are checked, so it is safe SQL). */
function partitionName(month: string): string {
  if (!MONTH.test(month)) throw new Error(`not a month: ${month}`);
  return `finished_records_${month.replace("-", "_")}`;
}

async function inTransaction<T>(client: pg.Client, fn: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await fn();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * One batch of step 1. Locks finished records before `cutoffAt` after seq `afterSeq` (in seq order),
 * then, with a fresh snapshot, leaves out those a running operation or pending replay holds (no
 * new reference can appear once the record is locked: a foreign key's check would wait for it).
 */
async function moveBatch(
  client: pg.Client,
  cutoffAt: string,
  afterSeq: string,
  batchSize: number,
): Promise<{ lastSeq: string | null; moved: number; heldBack: number }> {
  return inTransaction(client, async () => {
    // `seq_text`, not `seq`: ORDER BY would take the alias and sort the text ("10" before "9").
    const { rows: locked } = await client.query<{ id: string; seq_text: string }>(
      `SELECT id, seq::text AS seq_text FROM review_records
        WHERE status IN ('resolved', 'cancelled') AND updated_at < $1::timestamptz AND seq > $2::bigint
        ORDER BY seq LIMIT $3 FOR UPDATE`,
      [cutoffAt, afterSeq, batchSize],
    );
    if (locked.length === 0) return { lastSeq: null, moved: 0, heldBack: 0 };
    const lastSeq = locked[locked.length - 1]!.seq_text;
    const { rows: movable } = await client.query<{ id: string; month: string }>(
      `SELECT rr.id, to_char(rr.updated_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month
         FROM review_records rr
        WHERE rr.id = ANY($1::uuid[])
          AND rr.status IN ('resolved', 'cancelled')
          AND NOT EXISTS (SELECT 1 FROM bulk_operation_items i JOIN bulk_operations o ON o.id = i.operation_id
                           WHERE i.review_id = rr.id AND o.state NOT IN ('completed', 'aborted'))
          AND NOT EXISTS (SELECT 1 FROM replays r WHERE r.review_id = rr.id AND r.state IN ('scheduled', 'claimed'))`,
      [locked.map((r) => r.id)],
    );
    const heldBack = locked.length - movable.length;
    if (movable.length === 0) return { lastSeq, moved: 0, heldBack };
    for (const month of new Set(movable.map((r) => r.month))) {
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${pg.escapeIdentifier(partitionName(month))}
           PARTITION OF finished_records FOR VALUES IN (${pg.escapeLiteral(month)})`,
      );
    }
    const ids = movable.map((r) => r.id);
    // The message is kept as its exact text (`messageText`): the column is `json` so that key
    // order survives, which jsonb would not keep.
    await client.query(
      `INSERT INTO finished_records (finished_month, id, seq, status, finished_at, document)
       SELECT to_char(rr.updated_at AT TIME ZONE 'UTC', 'YYYY-MM'), rr.id, rr.seq, rr.status, rr.updated_at,
              jsonb_build_object(
                'record', to_jsonb(rr) - 'message',
                'messageText', rr.message::text,
                'revisions', coalesce((SELECT jsonb_agg(to_jsonb(v) ORDER BY v.number)
                                         FROM review_revisions v WHERE v.review_id = rr.id), '[]'::jsonb),
                'history', coalesce((SELECT jsonb_agg(to_jsonb(h) ORDER BY h.id)
                                       FROM review_history h WHERE h.review_id = rr.id), '[]'::jsonb),
                'replays', coalesce((SELECT jsonb_agg(to_jsonb(p) ORDER BY p.created_at, p.id)
                                       FROM replays p WHERE p.review_id = rr.id), '[]'::jsonb),
                'operationItems', coalesce((SELECT jsonb_agg(to_jsonb(i) ORDER BY i.operation_id, i.position)
                                              FROM bulk_operation_items i WHERE i.review_id = rr.id), '[]'::jsonb))
         FROM review_records rr WHERE rr.id = ANY($1::uuid[])`,
      [ids],
    );
    await client.query(
      `INSERT INTO archived_review_records (id, finished_month)
       SELECT id, finished_month FROM finished_records WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    // Children first: their foreign keys restrict the record's delete.
    for (const table of ["bulk_operation_items", "replays", "review_history", "review_revisions"]) {
      await client.query(`DELETE FROM ${table} WHERE review_id = ANY($1::uuid[])`, [ids]);
    }
    await client.query(`DELETE FROM review_records WHERE id = ANY($1::uuid[])`, [ids]);
    return { lastSeq, moved: ids.length, heldBack };
  });
}

/** The months whose partitions are attached: moved, not yet written and detached. */
async function attachedMonths(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'finished_records'::regclass
      ORDER BY c.relname`,
  );
  return rows.map((r) => r.name.replace(/^finished_records_(\d{4})_(\d{2})$/, "$1-$2")).filter((m) => MONTH.test(m));
}

/** Step 2: the partition to its file, durably; the file's SHA-256 and line count. */
async function writeMonth(
  client: pg.Client,
  month: string,
  file: string,
): Promise<{ records: number; sha256: string }> {
  const table = pg.escapeIdentifier(partitionName(month));
  const temporary = `${file}.tmp`;
  const hash = createHash("sha256");
  const handle = await open(temporary, "w");
  let records = 0;
  try {
    let afterSeq = "0";
    for (;;) {
      const { rows } = await client.query<{ seq_text: string; document: Record<string, unknown> }>(
        `SELECT seq::text AS seq_text, document FROM ${table} WHERE seq > $1::bigint ORDER BY seq LIMIT $2`,
        [afterSeq, WRITE_BATCH],
      );
      if (rows.length === 0) break;
      const text = rows.map((r) => `${JSON.stringify({ month, ...r.document })}\n`).join("");
      hash.update(text);
      await handle.write(text);
      records += rows.length;
      afterSeq = rows[rows.length - 1]!.seq_text;
    }
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
  // The rename is only durable once the directory is.
  const directory = await open(path.dirname(file), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
  return { records, sha256: hash.digest("hex") };
}

/** Step 3: the file recorded and logged, the partition detached and dropped, all or nothing. */
async function detachMonth(client: pg.Client, written: ArchivedMonth): Promise<void> {
  const table = pg.escapeIdentifier(partitionName(written.month));
  await inTransaction(client, async () => {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    if (rows[0]!.n !== written.records) {
      throw new Error(`partition ${written.month} holds ${rows[0]!.n} records but ${written.records} were written`);
    }
    await client.query(
      `INSERT INTO finished_record_archives (finished_month, part, file, records, sha256) VALUES ($1, $2, $3, $4, $5)`,
      [written.month, written.part, path.basename(written.file), written.records, written.sha256],
    );
    await client.query(
      `INSERT INTO decision_log (actor, action, reason, details) VALUES ('system:archive', 'records.archived', $1, $2)`,
      [
        `finished records of ${written.month} archived`,
        JSON.stringify({
          month: written.month,
          part: written.part,
          file: path.basename(written.file),
          records: written.records,
          sha256: written.sha256,
        }),
      ],
    );
    await client.query(`ALTER TABLE finished_records DETACH PARTITION ${table}`);
    await client.query(`DROP TABLE ${table}`);
  });
}

/**
 * Archives the finished records of every month before the cutoff (`before`, else the retention):
 * what `review-console archive` calls. Returns the files written by this run, month by month.
 */
export async function archiveFinishedRecords(
  connectionString: string,
  options: ArchiveFinishedOptions,
): Promise<ArchiveFinishedResult> {
  const before = finishedRecordsCutoff(options);
  const cutoffAt = `${before}-01T00:00:00Z`;
  await mkdir(options.dir, { recursive: true });
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [ARCHIVE_LOCK_KEY]);
    let heldBack = 0;
    let afterSeq = "0";
    for (;;) {
      const batch = await moveBatch(client, cutoffAt, afterSeq, options.batchSize ?? MOVE_BATCH);
      if (batch.lastSeq === null) break;
      heldBack += batch.heldBack;
      afterSeq = batch.lastSeq;
    }
    // Every attached partition, also one a crashed run left (whatever its month).
    const months: ArchivedMonth[] = [];
    for (const month of await attachedMonths(client)) {
      const { rows } = await client.query<{ part: number }>(
        `SELECT coalesce(max(part), 0)::int + 1 AS part FROM finished_record_archives WHERE finished_month = $1`,
        [month],
      );
      const part = rows[0]!.part;
      const file = path.join(options.dir, archiveFileName(month, part));
      const { records, sha256 } = await writeMonth(client, month, file);
      const written = { month, part, file, records, sha256 };
      await detachMonth(client, written);
      months.push(written);
    }
    return { before, months, heldBack };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [ARCHIVE_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
