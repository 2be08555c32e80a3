import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { auditCursor } from "@/lib/http/seq-cursor";
import { type AuditEntry, type AuditFilter, type AuditListQuery, DEFAULT_AUDIT_LIMIT } from "./schema";

/** An entry as AUDIT_COLUMNS read it: `seq` a bigint, `details` jsonb's text. */
export type AuditRow = Omit<AuditEntry, "seq" | "details"> & { seq: bigint; details: string | null };

/**
 * `at` is rendered by PostgreSQL with its microseconds, exactly as the hash function renders it
 * (a JS Date would cut it to milliseconds). `details` travels as jsonb's text.
 */
export const AUDIT_COLUMNS = Prisma.sql`seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
  actor, actor_role AS "actorRole", action, review_id::text AS "reviewId", effect_key AS "effectKey", reason,
  details::text AS details, prev_hash AS "prevHash", hash`;

/**
 * A time bound of the filter as a seq bound: `from` as the first entry at or after it, `to` as the
 * last entry before it (`null`: no such entry, the window is empty). Absent when the bound was not
 * given, or falls where the log's `at` may be out of seq order (see timeWindowAsSeq).
 */
export interface SeqWindow {
  fromSeq?: bigint | null;
  toSeq?: bigint | null;
}

/**
 * The condition the filters put on decision_log: its clauses joined with AND, `TRUE` for no
 * filter, so it always fits after WHERE. Each equality filter has a `(column, seq)` index, so a
 * page walks one index backwards from the cursor. `from`/`to` are seq bounds when `window`
 * translated them (the primary key, or the `(column, seq)` index, walks only the window), else
 * conditions on `at`.
 */
export function auditWhere(filter: AuditFilter, window: SeqWindow = {}): Prisma.Sql {
  const where: Prisma.Sql[] = [];
  if (filter.actor) where.push(Prisma.sql`actor = ${filter.actor}`);
  if (filter.action) where.push(Prisma.sql`action = ${filter.action}`);
  if (filter.reviewId) where.push(Prisma.sql`review_id = ${filter.reviewId}::uuid`);
  if (filter.effectKey) where.push(Prisma.sql`effect_key = ${filter.effectKey}`);
  // Spelled as the expression index decision_log_operation_id is, so the planner uses it.
  if (filter.operationId) {
    where.push(Prisma.sql`details ? 'operationId' AND (details->>'operationId') = ${filter.operationId}`);
  }
  // Passed as text: PostgreSQL keeps the microseconds a JS Date would drop.
  if (window.fromSeq !== undefined) {
    where.push(window.fromSeq === null ? Prisma.sql`FALSE` : Prisma.sql`seq >= ${window.fromSeq}`);
  } else if (filter.from) where.push(Prisma.sql`at >= ${filter.from}::timestamptz`);
  if (window.toSeq !== undefined) {
    where.push(window.toSeq === null ? Prisma.sql`FALSE` : Prisma.sql`seq <= ${window.toSeq}`);
  } else if (filter.to) where.push(Prisma.sql`at < ${filter.to}::timestamptz`);
  return where.length ? Prisma.join(where, " AND ") : Prisma.sql`TRUE`;
}

interface WindowRow {
  fromOrdered: boolean | null;
  toOrdered: boolean | null;
  lo: bigint | null;
  hi: bigint | null;
}

/**
 * Translates `from`/`to` into a range of seq, in one round trip of two index probes on `at`. A
 * page of a time window otherwise either collected the whole window through the `at` index and
 * sorted it by seq, or walked the primary key back from the newest entry to the window (seconds
 * for an hour a month ago in a 30,000,000-entry log).
 *
 * Exact because `at` rises with `seq` (the chain trigger sets it so, under the head lock), so the
 * entries of a window are the seq range between its first and its last entry. Entries written
 * before that rule may be out of order: decision_log_time_order.unordered_until is the latest
 * `at` among them, and a bound at or before it stays a condition on `at`.
 */
export async function timeWindowAsSeq(filter: AuditFilter): Promise<SeqWindow> {
  if (!filter.from && !filter.to) return {};
  const from = filter.from ?? null;
  const to = filter.to ?? null;
  // A bound is translated when the whole ordered part of the log lies on its side: later than
  // every entry that may be out of order. A missing time-order row translates nothing.
  const [row] = await db().$queryRaw<WindowRow[]>`
    SELECT o.id IS NOT NULL AND (o.unordered_until IS NULL OR ${from}::timestamptz > o.unordered_until) AS "fromOrdered",
           o.id IS NOT NULL AND (o.unordered_until IS NULL OR ${to}::timestamptz > o.unordered_until) AS "toOrdered",
           (SELECT seq FROM decision_log WHERE ${from}::timestamptz IS NOT NULL AND at >= ${from}::timestamptz
             ORDER BY at, seq LIMIT 1) AS lo,
           (SELECT seq FROM decision_log WHERE ${to}::timestamptz IS NOT NULL AND at < ${to}::timestamptz
             ORDER BY at DESC, seq DESC LIMIT 1) AS hi
      FROM (SELECT 1) AS one LEFT JOIN decision_log_time_order o ON o.id = 1`;
  const window: SeqWindow = {};
  if (from && row?.fromOrdered) window.fromSeq = row.lo;
  if (to && row?.toOrdered) window.toSeq = row.hi;
  return window;
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    seq: Number(row.seq),
    at: row.at,
    actor: row.actor,
    actorRole: row.actorRole,
    action: row.action,
    reviewId: row.reviewId,
    effectKey: row.effectKey,
    reason: row.reason,
    details: row.details === null ? null : (JSON.parse(row.details) as unknown),
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** Newest first by `seq`, keyset-paginated like the review list. */
export async function listDecisions(
  query: AuditListQuery,
): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_AUDIT_LIMIT;
  const before = query.cursor ? Prisma.sql`AND seq < ${auditCursor.decode(query.cursor)}` : Prisma.empty;
  const window = await timeWindowAsSeq(query);
  const rows = await db().$queryRaw<AuditRow[]>`
    SELECT ${AUDIT_COLUMNS}
      FROM decision_log
     WHERE ${auditWhere(query, window)} ${before}
     ORDER BY seq DESC
     LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toAuditEntry),
    nextCursor: rows.length > limit && last ? auditCursor.encode(last.seq) : null,
  };
}
