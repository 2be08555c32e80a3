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
 * The condition the filters put on decision_log: its clauses joined with AND, `TRUE` for no
 * filter, so it always fits after WHERE. Each equality filter has a `(column, seq)` index, so a
 * page walks one index backwards from the cursor; `from`/`to` use the `at` index or the primary
 * key, whichever the planner finds cheaper.
 */
export function auditWhere(filter: AuditFilter): Prisma.Sql {
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
  if (filter.from) where.push(Prisma.sql`at >= ${filter.from}::timestamptz`);
  if (filter.to) where.push(Prisma.sql`at < ${filter.to}::timestamptz`);
  return where.length ? Prisma.join(where, " AND ") : Prisma.sql`TRUE`;
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
  const rows = await db().$queryRaw<AuditRow[]>`
    SELECT ${AUDIT_COLUMNS}
      FROM decision_log
     WHERE ${auditWhere(query)} ${before}
     ORDER BY seq DESC
     LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toAuditEntry),
    nextCursor: rows.length > limit && last ? auditCursor.encode(last.seq) : null,
  };
}
