import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { reviewFilterSql, searchModeOf } from "./filter-sql";
import { reviewCursor } from "@/lib/http/seq-cursor";
import type { ListQuery, ReviewStatus } from "./schema";

/** A person a record is assigned to (ADR 0028): an id, and a name and an email to show. */
export interface AssigneeRef {
  id: string;
  name: string;
  email: string;
}

export interface ReviewListItem {
  id: string;
  status: ReviewStatus;
  category: string;
  reason: string;
  kind: string | null;
  messageId: string | null;
  effectKey: string | null;
  sequenceKey: string | null;
  sequence: number | null;
  attempts: number;
  requiredCheck: string;
  version: number;
  firstSeenAt: string;
  lastSeenAt: string;
  /**
   * A held `sequence-gap` record whose missing predecessors have since been applied: open, with a
   * key and a sequence, and its key's last applied sequence is at least `sequence - 1`
   * (docs/operations.md, "Gap release"). A replay would now go through.
   */
  ready: boolean;
  /** Who the record is assigned to, or null. */
  assignee: AssigneeRef | null;
}

/** A list item as the list serves it: the fields of docs/api.md plus the last error and its class. */
export interface ReviewQueueItem extends ReviewListItem {
  /** The class of `lastError` (SQL `review_error_class`), or null. */
  errorClass: string | null;
  lastError: string | null;
}

/** A row as the query reads it: the item with the database's types (bigint, Date) and its `seq`. */
type ListRow = Omit<ReviewQueueItem, "sequence" | "firstSeenAt" | "lastSeenAt" | "assignee"> & {
  seq: bigint;
  assigneeId: string | null;
  assigneeName: string | null;
  assigneeEmail: string | null;
  sequence: bigint | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
};

export const DEFAULT_LIMIT = 50;
/** A list shows the start of the last error (the detail has all of it): a page stays small. */
export const LIST_LAST_ERROR_CHARS = 300;

/**
 * Newest first by `seq`, keyset-paginated: a page deep in the list costs what the first does,
 * because each page starts from an index position instead of counting past earlier rows.
 */
export async function listReviews(
  query: ListQuery & AssigneeFilter,
): Promise<{ items: ReviewQueueItem[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const before = query.cursor ? Prisma.sql`AND seq < ${reviewCursor.decode(query.cursor)}` : Prisma.empty;
  // q's mode first (a B-tree lookup), so the page's query holds only that mode's condition.
  const search = query.q ? await searchModeOf(query.q) : undefined;
  // `ready` is computed on the page's rows only (the outer query), never on the rows scanned: one
  // primary-key probe of sequence_state per row of the page. (A correlated EXISTS here measured
  // slower than this join.)
  const rows = await db().$queryRaw<ListRow[]>`
    SELECT page.seq, page.id::text AS id, page.status::text AS status, page.category::text AS category,
      page.reason, page.kind, page.message_id AS "messageId", page.effect_key AS "effectKey",
      page.sequence_key AS "sequenceKey", page.sequence, page.attempts, page.required_check AS "requiredCheck",
      page.version, page.first_seen_at AS "firstSeenAt", page.last_seen_at AS "lastSeenAt",
      page.error_class AS "errorClass", left(page.last_error, ${LIST_LAST_ERROR_CHARS}::int) AS "lastError",
      COALESCE(page.status = 'open' AND page.category = 'sequence-gap' AND page.reason = 'sequence-gap'
        AND page.sequence IS NOT NULL
        AND key_state.last_sequence >= page.sequence - 1, false) AS ready,
      page.assignee_id::text AS "assigneeId", assignee.name AS "assigneeName", assignee.email AS "assigneeEmail"
    FROM (SELECT seq, id, status, category, reason, kind, message_id, effect_key, sequence_key, sequence, attempts,
                 required_check, version, first_seen_at, last_seen_at, error_class, last_error, assignee_id
            FROM review_records r
           WHERE ${reviewFilterSql(query, Prisma.sql`r`, search)} ${assigneeCondition(query)} ${before}
           ORDER BY seq DESC
           LIMIT ${limit + 1}) page
    LEFT JOIN sequence_state key_state ON key_state.sequence_key = page.sequence_key
    LEFT JOIN users assignee ON assignee.id = page.assignee_id
    ORDER BY page.seq DESC`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toListItem),
    nextCursor: rows.length > limit && last ? reviewCursor.encode(last.seq) : null,
  };
}

function toListItem(row: ListRow): ReviewQueueItem {
  return {
    id: row.id,
    status: row.status,
    category: row.category,
    reason: row.reason,
    kind: row.kind,
    messageId: row.messageId,
    effectKey: row.effectKey,
    sequenceKey: row.sequenceKey,
    sequence: row.sequence === null ? null : Number(row.sequence),
    attempts: row.attempts,
    requiredCheck: row.requiredCheck,
    version: row.version,
    firstSeenAt: row.firstSeenAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    errorClass: row.errorClass,
    lastError: row.lastError,
    ready: row.ready,
    assignee: row.assigneeId
      ? { id: row.assigneeId, name: row.assigneeName ?? "", email: row.assigneeEmail ?? "" }
      : null,
  };
}

/**
 * The list's `assignee` filter, resolved by the route (`me` is the caller): a person's id, or
 * null for unassigned records. Only the list takes it; a bulk operation's filter does not.
 */
export interface AssigneeFilter {
  assigneeId?: string | null;
}

function assigneeCondition(filter: AssigneeFilter): Prisma.Sql {
  if (filter.assigneeId === undefined) return Prisma.empty;
  if (filter.assigneeId === null) return Prisma.sql`AND r.assignee_id IS NULL`;
  return Prisma.sql`AND r.assignee_id = ${filter.assigneeId}::uuid`;
}
