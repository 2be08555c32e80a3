import { db } from "@/lib/db/client";
import { auditCursor } from "@/lib/http/seq-cursor";
import { type AuditEntry, type AuditFilter, type AuditListQuery, DEFAULT_AUDIT_LIMIT } from "./schema";

export interface AuditRow {
  seq: bigint;
  at: string;
  actor: string;
  actor_role: string | null;
  action: string;
  review_id: string | null;
  effect_key: string | null;
  reason: string | null;
  details: string | null;
  prev_hash: string;
  hash: string;
}

/**
 * `at` is rendered by PostgreSQL with its microseconds, exactly as the hash function renders it
 * (a JS Date would cut it to milliseconds). `details` travels as jsonb's text.
 */
export const AUDIT_COLUMNS = `seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, actor,
  actor_role, action, review_id::text AS review_id, effect_key, reason, details::text AS details, prev_hash, hash`;

/**
 * The WHERE clauses of the filters, with their parameters from `$<first>` on. Each equality filter
 * has a `(column, seq)` index, so a page walks one index backwards from the cursor; `from`/`to`
 * use the `at` index or the primary key, whichever the planner finds cheaper.
 */
export function auditWhere(filter: AuditFilter, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (clause: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (filter.actor) add((p) => `actor = ${p}`, filter.actor);
  if (filter.action) add((p) => `action = ${p}`, filter.action);
  if (filter.reviewId) add((p) => `review_id = ${p}::uuid`, filter.reviewId);
  if (filter.effectKey) add((p) => `effect_key = ${p}`, filter.effectKey);
  // Spelled as the expression index decision_log_operation_id is, so the planner uses it.
  if (filter.operationId) {
    add((p) => `details ? 'operationId' AND (details->>'operationId') = ${p}`, filter.operationId);
  }
  // Passed as text: PostgreSQL keeps the microseconds a JS Date would drop.
  if (filter.from) add((p) => `at >= ${p}::timestamptz`, filter.from);
  if (filter.to) add((p) => `at < ${p}::timestamptz`, filter.to);
  return where;
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    seq: Number(row.seq),
    at: row.at,
    actor: row.actor,
    actorRole: row.actor_role,
    action: row.action,
    reviewId: row.review_id,
    effectKey: row.effect_key,
    reason: row.reason,
    details: row.details === null ? null : (JSON.parse(row.details) as unknown),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** Newest first by `seq`, keyset-paginated like the review list. */
export async function listDecisions(
  query: AuditListQuery,
): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_AUDIT_LIMIT;
  const params: unknown[] = [];
  const where = auditWhere(query, params);
  if (query.cursor) {
    params.push(auditCursor.decode(query.cursor));
    where.push(`seq < $${params.length}`);
  }
  params.push(limit + 1);
  const rows = await db().$queryRawUnsafe<AuditRow[]>(
    `SELECT ${AUDIT_COLUMNS}
       FROM decision_log
      ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY seq DESC
      LIMIT $${params.length}`,
    ...params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toAuditEntry),
    nextCursor: rows.length > limit && last ? auditCursor.encode(last.seq) : null,
  };
}
