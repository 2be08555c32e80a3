import { createHash, type KeyObject } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import {
  signCheckpoint,
  entryHash,
  formatEntryTime,
  GENESIS_HASH,
  type ArchiveEntry,
  type ArchiveHeader,
  ARCHIVE_KIND,
  entryLine,
  headerLine,
} from "@/lib/audit";
import { ensureLogPartitions, listMonthPartitions, monthStart, type MonthPartition } from "./partitions";

/**
 * `review-console archive --before YYYY-MM` for the decision log
 * (docs/decisions/0023-retention-and-archive.md). For each month partition before that month,
 * oldest first: write the month to DIR/decision-log-YYYY-MM.ndjson (lib/audit/archive-file.ts)
 * verifying its chain on the way, sign its last entry, fsync; then in one transaction record the
 * segment in decision_log_archives, detach the partition and drop it. A crash between the two
 * leaves the month live and the file complete: running again writes the file again and goes on.
 * Runs as the tables' owner (DETACH and DROP).
 */

export const archiveFileName = (month: string) => `decision-log-${month}.ndjson`;

export interface ArchivedMonth {
  month: string;
  entries: number;
  /** Null for an empty month: its partition is dropped, no file is written. */
  file: string | null;
  firstSeq?: number;
  lastSeq?: number;
  sha256?: string;
}

/** Bad input or a month that cannot be archived; the message says why and what to do. */
export class ArchiveRefusal extends Error {}

const BATCH = 5000;

/** The UTC month of `now`, as YYYY-MM. */
export const currentMonth = (now = new Date()) => now.toISOString().slice(0, 7);

function checkBefore(before: string, now: Date): void {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(before)) throw new ArchiveRefusal(`--before must be YYYY-MM, got "${before}"`);
  if (before > currentMonth(now)) {
    throw new ArchiveRefusal(
      `--before ${before} is after the current month ${currentMonth(now)}: the current month is still being written`,
    );
  }
}

export interface LastArchived {
  lastSeq: number;
  lastHash: string;
}

async function lastArchived(client: pg.Client): Promise<LastArchived> {
  const { rows } = await client.query<{ lastSeq: string; lastHash: string }>(
    `SELECT last_seq::text AS "lastSeq", last_hash AS "lastHash" FROM decision_log_archives ORDER BY last_seq DESC LIMIT 1`,
  );
  return rows[0]
    ? { lastSeq: Number(rows[0].lastSeq), lastHash: rows[0].lastHash }
    : { lastSeq: 0, lastHash: GENESIS_HASH };
}

export interface Span {
  entries: number;
  firstSeq: number;
  lastSeq: number;
  lastHash: string | null;
}

export async function spanOf(client: pg.Client, partition: string): Promise<Span> {
  const table = pg.escapeIdentifier(partition);
  const { rows } = await client.query<{ n: string; first: string | null; last: string | null; hash: string | null }>(
    `SELECT count(*)::text AS n, min(seq)::text AS first, max(seq)::text AS last,
            (SELECT hash FROM ${table} ORDER BY seq DESC LIMIT 1) AS hash FROM ${table}`,
  );
  const row = rows[0]!;
  return {
    entries: Number(row.n),
    firstSeq: Number(row.first ?? 0),
    lastSeq: Number(row.last ?? 0),
    lastHash: row.hash,
  };
}

/** Fsyncs a directory, so a rename into it survives a crash. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

type Row = Omit<ArchiveEntry, "seq" | "at"> & { seq: string; atEpoch: string };

/**
 * Writes the month's file, checking its chain while it streams (exported for the test that
 * archives trigger-made entries of the current month without detaching them) (a broken segment is not
 * archived: the database keeps it for `audit verify` to name). Returns the file's SHA-256.
 */
export async function writeMonthFile(
  client: pg.Client,
  partition: MonthPartition,
  span: Span,
  previous: LastArchived,
  file: string,
  privateKey: KeyObject,
): Promise<string> {
  const partial = `${file}.partial`;
  const handle = await open(partial, "w", 0o644);
  const digest = createHash("sha256");
  const write = async (line: string) => {
    const bytes = Buffer.from(`${line}\n`, "utf8");
    digest.update(bytes);
    await handle.write(bytes);
  };
  try {
    const header: ArchiveHeader = {
      kind: ARCHIVE_KIND,
      version: 1,
      month: partition.month,
      firstSeq: span.firstSeq,
      lastSeq: span.lastSeq,
      entries: span.entries,
      prevHash: previous.lastHash,
    };
    await write(headerLine(header));
    let seq = previous.lastSeq;
    let hash = previous.lastHash;
    let at = "";
    for (;;) {
      // ORDER BY the column, not the text alias `seq` (which would sort entry 10 before entry 2).
      const { rows } = await client.query<Row>(
        `SELECT seq::text AS seq, extract(epoch FROM at)::text AS "atEpoch", actor, actor_role AS "actorRole", action,
                review_id::text AS "reviewId", effect_key AS "effectKey", reason, details::text AS details,
                prev_hash AS "prevHash", hash
           FROM ${pg.escapeIdentifier(partition.table)} AS l WHERE l.seq > $1 ORDER BY l.seq LIMIT $2`,
        [seq, BATCH],
      );
      for (const row of rows) {
        const next = Number(row.seq);
        if (next !== seq + 1 || row.prevHash !== hash || entryHash(row) !== row.hash) {
          throw new ArchiveRefusal(
            `${partition.month}: entry ${row.seq} does not verify (run \`review-console audit verify\`); nothing archived`,
          );
        }
        at = formatEntryTime(row.atEpoch);
        await write(
          entryLine({
            seq: next,
            at,
            actor: row.actor,
            actorRole: row.actorRole,
            action: row.action,
            reviewId: row.reviewId,
            effectKey: row.effectKey,
            reason: row.reason,
            details: row.details,
            prevHash: row.prevHash,
            hash: row.hash,
          }),
        );
        seq = next;
        hash = row.hash;
      }
      if (rows.length < BATCH) break;
    }
    if (seq !== span.lastSeq) {
      throw new ArchiveRefusal(`${partition.month}: the month changed while it was being written; run archive again`);
    }
    await write(JSON.stringify(signCheckpoint({ seq: BigInt(seq), hash, at }, privateKey)));
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(partial, { force: true });
    throw error;
  }
  await handle.close();
  await rename(partial, file);
  await syncDirectory(path.dirname(file));
  return digest.digest("hex");
}

/**
 * Records the archived segment, detaches the partition and drops it, in one transaction; first
 * checks under the detach's lock that the partition still holds what the file holds.
 */
async function detachMonth(
  client: pg.Client,
  partition: MonthPartition,
  written: { span: Span; file: string; sha256: string; lastAt: string } | null,
): Promise<void> {
  await client.query("BEGIN");
  try {
    // Appends wait for the lock; better a clear failure than a long stall of the console.
    await client.query("SET LOCAL lock_timeout = '10s'");
    await client.query(`ALTER TABLE decision_log DETACH PARTITION ${pg.escapeIdentifier(partition.table)}`);
    const now = await spanOf(client, partition.table);
    const expected = written?.span ?? { entries: 0 };
    if (now.entries !== expected.entries || (written && now.lastHash !== written.span.lastHash)) {
      throw new ArchiveRefusal(`${partition.month}: the month changed while it was being written; run archive again`);
    }
    if (written) {
      await client.query(
        `INSERT INTO decision_log_archives (month, first_seq, last_seq, last_hash, last_at, entries, file_name, file_sha256)
         VALUES ($1, $2, $3, $4, $5::timestamptz, $6, $7, $8)`,
        [
          partition.month,
          written.span.firstSeq,
          written.span.lastSeq,
          written.span.lastHash,
          written.lastAt,
          written.span.entries,
          path.basename(written.file),
          written.sha256,
        ],
      );
    }
    await client.query(`DROP TABLE ${pg.escapeIdentifier(partition.table)}`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

export interface ArchiveOptions {
  /** YYYY-MM: every month before it is archived. At most the current month. */
  before: string;
  dir: string;
  privateKey: KeyObject;
  now?: Date;
  onMonth?: (done: ArchivedMonth) => void;
  /** A month's entries moved out of decision_log_default into a partition of their own first. */
  onMoved?: (month: string, entries: number) => void;
}

/**
 * Entries of a month that had no partition when they were appended sit in decision_log_default,
 * where a month cannot be archived on its own: each such month before `before` is moved into a
 * partition of its own first (decision_log_move_default_month, migration 20261202050000), under
 * the log's lock with a timeout (appends wait meanwhile; a busy log fails clearly, and running
 * again goes on).
 */
async function moveStrayMonths(client: pg.Client, before: string, onMoved: ArchiveOptions["onMoved"]): Promise<void> {
  const { rows: stray } = await client.query<{ month: string }>(
    `SELECT DISTINCT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM decision_log_default
      WHERE at < $1::timestamptz ORDER BY 1`,
    [monthStart(before)],
  );
  for (const { month } of stray) {
    await client.query("BEGIN");
    try {
      await client.query("SET LOCAL lock_timeout = '10s'");
      const { rows } = await client.query<{ moved: string }>(
        `SELECT decision_log_move_default_month($1::timestamptz)::text AS moved`,
        [monthStart(month)],
      );
      await client.query("COMMIT");
      onMoved?.(month, Number(rows[0]!.moved));
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      if ((error as { code?: string }).code === "55P03") {
        throw new ArchiveRefusal(
          `${month}: its entries in decision_log_default could not be moved to a partition of their own ` +
            "(lock timeout: the log was busy); run archive again",
        );
      }
      throw error;
    }
  }
}

/** Archives every full month of the decision log before `before` that is still in the database. */
export async function archiveDecisionLog(ownerUrl: string, options: ArchiveOptions): Promise<ArchivedMonth[]> {
  const now = options.now ?? new Date();
  checkBefore(options.before, now);
  const client = new pg.Client({ connectionString: ownerUrl });
  client.on("error", () => {});
  await client.connect();
  const done: ArchivedMonth[] = [];
  try {
    await ensureLogPartitions(client);
    await moveStrayMonths(client, options.before, options.onMoved);
    const months = (await listMonthPartitions(client)).filter((p) => p.month < options.before);
    for (const partition of months) {
      const previous = await lastArchived(client);
      const span = await spanOf(client, partition.table);
      if (span.entries === 0) {
        await detachMonth(client, partition, null);
        const result = { month: partition.month, entries: 0, file: null };
        done.push(result);
        options.onMonth?.(result);
        continue;
      }
      // Every partition must be the next contiguous seq range: entries written before migration
      // 20261201000000 may have a time out of seq order, and then a month is not one segment.
      if (span.firstSeq !== previous.lastSeq + 1 || span.lastSeq - span.firstSeq + 1 !== span.entries) {
        throw new ArchiveRefusal(
          `cannot archive ${partition.month}: its ${span.entries} entries (seq ${span.firstSeq}..${span.lastSeq}) are not ` +
            `the contiguous range after seq ${previous.lastSeq}: older entries are out of time order ` +
            "(written before migration 20261201000000); such a month cannot be archived on its own",
        );
      }
      const file = path.join(options.dir, archiveFileName(partition.month));
      const sha256 = await writeMonthFile(client, partition, span, previous, file, options.privateKey);
      const { rows } = await client.query<{ at: string }>(
        `SELECT at::text FROM ${pg.escapeIdentifier(partition.table)} WHERE seq = $1`,
        [span.lastSeq],
      );
      // === HOOK POINT (finished records) is in cli/archive-commands.ts, after all months. ===
      await detachMonth(client, partition, { span, file, sha256, lastAt: rows[0]!.at });
      const result = {
        month: partition.month,
        entries: span.entries,
        file,
        firstSeq: span.firstSeq,
        lastSeq: span.lastSeq,
        sha256,
      };
      done.push(result);
      options.onMonth?.(result);
    }
    return done;
  } finally {
    await client.end();
  }
}
