import { db } from "@/lib/db/client";
import { ApiError } from "@/lib/http/errors";
import { type AuditEntry, type AuditFilter, type AuditListQuery, DEFAULT_AUDIT_LIMIT } from "./schema";

// The largest value of PostgreSQL's bigint, the type of `seq`.
const MAX_SEQ = 2n ** 63n - 1n;

// Opaque to clients, like the review list's cursor; the prefix keeps the two from being swapped.
export function encodeAuditCursor(seq: bigint): string {
  return Buffer.from(`d:${seq}`).toString("base64url");
}

export function decodeAuditCursor(cursor: string): bigint {
  const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const match = /^d:(\d{1,19})$/.exec(raw);
  const seq = match?.[1] ? BigInt(match[1]) : null;
  if (seq === null || seq > MAX_SEQ) {
    throw new ApiError(400, "invalid-request", "cursor: is not a cursor this API returned", [
      { path: "cursor", message: "is not a cursor this API returned" },
    ]);
  }
  return seq;
}

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
    params.push(decodeAuditCursor(query.cursor));
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
    nextCursor: rows.length > limit && last ? encodeAuditCursor(last.seq) : null,
  };
}
