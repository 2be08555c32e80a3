import { db } from "@/lib/db/client";
import { ALL_RECORDS, type RecordScope, scopeCondition } from "@/lib/access";
import { Prisma } from "@/lib/generated/prisma/client";
import { type ReviewFilter, reviewFilterSql, searchModeOf } from "./filter-sql";
import { reviewCursor } from "@/lib/domain/seq-cursor";
import { invalidField } from "@/lib/domain/refusal";
import type { ListQuery, ListSort, ListSortField, ReviewStatus } from "./schema";

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
  /** The cause: the class the client sent, else SQL `review_error_class` of `lastError`; or null. */
  errorClass: string | null;
  lastError: string | null;
}

/** A row as the query reads it: the item with the database's types (bigint, Date) and its `seq`. */
type ListRow = Omit<ReviewQueueItem, "sequence" | "firstSeenAt" | "lastSeenAt" | "assignee"> & {
  seq: bigint;
  /** The sort column's value as a sorted order's cursor holds it; null in the default order. */
  sortKey: string | null;
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

/** The columns an order can use: the item's field, its column, and how its cursor value reads. */
const SORT_COLUMNS: Record<ListSortField, { column: string; type: "timestamptz" | "int" }> = {
  firstSeenAt: { column: "first_seen_at", type: "timestamptz" },
  lastSeenAt: { column: "last_seen_at", type: "timestamptz" },
  attempts: { column: "attempts", type: "int" },
};

/** The page query's ORDER BY, its keyset condition and the cursor value of a row, for one order. */
interface Order {
  /** ORDER BY of the inner query (alias `r`) and the outer one (alias `page`). */
  inner: Prisma.Sql;
  outer: Prisma.Sql;
  /** AND-ed to the filter: the rows after the cursor, or nothing on the first page. */
  after: Prisma.Sql;
  /** The sort column's value as the cursor holds it (text), for the inner query's select list. */
  key: Prisma.Sql;
}

function seqOrder(cursor: string | undefined): Order {
  return {
    inner: Prisma.sql`r.seq DESC`,
    outer: Prisma.sql`page.seq DESC`,
    after: cursor ? Prisma.sql`AND r.seq < ${reviewCursor.decode(cursor)}` : Prisma.empty,
    key: Prisma.sql`NULL::text`,
  };
}

/**
 * A sorted order: (column, id), both in the sort's direction, so the keyset condition is one row
 * comparison that a B-tree on (column, id), or (status, column, id), answers as a range scan
 * (migration 20261201090000_queue_sort_indexes). Timestamps travel in the cursor as text with
 * microseconds: a JavaScript Date would cut them to milliseconds and skip or repeat rows.
 */
function sortedOrder(sort: ListSort, cursor: string | undefined): Order {
  const desc = sort.startsWith("-");
  const { column, type } = SORT_COLUMNS[(desc ? sort.slice(1) : sort) as ListSortField];
  const dir = Prisma.raw(desc ? "DESC" : "ASC");
  const col = Prisma.raw(column);
  let after: Prisma.Sql = Prisma.empty;
  if (cursor) {
    const { key, id } = sortCursor.decode(cursor, sort);
    const value = type === "int" ? Prisma.sql`${Number(key)}::int` : Prisma.sql`${key}::timestamptz`;
    after = desc
      ? Prisma.sql`AND (r.${col}, r.id) < (${value}, ${id}::uuid)`
      : Prisma.sql`AND (r.${col}, r.id) > (${value}, ${id}::uuid)`;
  }
  return {
    inner: Prisma.sql`r.${col} ${dir}, r.id ${dir}`,
    outer: Prisma.sql`page.${col} ${dir}, page.id ${dir}`,
    after,
    key:
      type === "int"
        ? Prisma.sql`r.${col}::text`
        : Prisma.sql`to_char(r.${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
  };
}

const TIMESTAMP_KEY = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})\d{3}Z$/;
const UUID_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INT_MAX = 2_147_483_647;

/**
 * The cursor of a sorted list: its order, the last row's sort value and its id. Opaque to
 * clients like the default one, and bound to its order: a cursor of another `sort` (or of the
 * default order) is refused, naming `cursor`, instead of resuming from a meaningless place.
 */
export const sortCursor = {
  encode(sort: ListSort, key: string, id: string): string {
    return Buffer.from(`o:${sort}:${key}:${id}`).toString("base64url");
  },
  decode(cursor: string, sort: ListSort): { key: string; id: string } {
    const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
    const match = /^o:(-?[A-Za-z]+):([^:]*(?::[^:]*)*):([^:]+)$/.exec(raw);
    if (!match) throw invalidField("cursor", "is not a cursor this API returned");
    const [, cursorSort, key = "", id = ""] = match;
    if (cursorSort !== sort) {
      throw invalidField("cursor", `belongs to another order (sort=${cursorSort}); start again without a cursor`);
    }
    const field = (sort.startsWith("-") ? sort.slice(1) : sort) as ListSortField;
    const valid = UUID_KEY.test(id) && (SORT_COLUMNS[field].type === "int" ? validInt(key) : validTimestamp(key));
    if (!valid) throw invalidField("cursor", "is not a cursor this API returned");
    return { key, id };
  },
};

function validInt(key: string): boolean {
  return /^-?\d{1,10}$/.test(key) && Math.abs(Number(key)) <= INT_MAX;
}

/** A UTC timestamp with microseconds that names a real instant (no 30 February), as PostgreSQL reads it. */
function validTimestamp(key: string): boolean {
  const millis = TIMESTAMP_KEY.exec(key)?.[1];
  if (!millis) return false;
  const date = new Date(`${millis}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 23) === millis;
}

/**
 * Within `scope` (the caller's domains, ADR 0030: `kind = ANY(...)` on the (kind, seq) index).
 * Newest first by `seq` unless `sort` names another order; keyset-paginated either way: a page
 * deep in the list costs what the first does, because each page starts from an index position
 * instead of counting past earlier rows.
 */
export async function listReviews(
  query: ListQuery & AssigneeFilter,
  scope: RecordScope = ALL_RECORDS,
): Promise<{ items: ReviewQueueItem[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const order = query.sort ? sortedOrder(query.sort, query.cursor) : seqOrder(query.cursor);
  // q's mode first (a B-tree lookup), so the page's query holds only that mode's condition;
  // decided among the caller's records, never telling which keys exist in other domains.
  const search = query.q ? await searchModeOf(query.q, scope) : undefined;
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
      page.sort_key AS "sortKey",
      page.assignee_id::text AS "assigneeId", assignee.name AS "assigneeName", assignee.email AS "assigneeEmail"
    FROM (SELECT seq, id, status, category, reason, kind, message_id, effect_key, sequence_key, sequence, attempts,
                 required_check, version, first_seen_at, last_seen_at, error_class, last_error, assignee_id,
                 ${order.key} AS sort_key
            FROM review_records r
           WHERE ${reviewFilterSql(query, Prisma.sql`r`, search)} ${assigneeCondition(query)} ${order.after}
             ${scopeCondition(scope, Prisma.sql`r`)}
           ORDER BY ${order.inner}
           LIMIT ${limit + 1}) page
    LEFT JOIN sequence_state key_state ON key_state.sequence_key = page.sequence_key
    LEFT JOIN users assignee ON assignee.id = page.assignee_id
    ORDER BY ${order.outer}`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  let nextCursor: string | null = null;
  if (rows.length > limit && last) {
    nextCursor = query.sort
      ? sortCursor.encode(query.sort, last.sortKey ?? "", last.id)
      : reviewCursor.encode(last.seq);
  }
  return { items: page.map(toListItem), nextCursor };
}

/** Past this many, a count says "more than" unless asked to be exact: a capped count stays cheap on a large table. */
export const COUNT_CAP = 10_000;

/**
 * How many records the list's filter selects (the same conditions as the list, within `scope`):
 * up to COUNT_CAP, with `more` past it, or `exact` (a full count, as long as the filter makes it).
 */
export async function countReviews(
  query: ReviewFilter & AssigneeFilter,
  scope: RecordScope = ALL_RECORDS,
  { exact = false, cap = COUNT_CAP }: { exact?: boolean; cap?: number } = {},
): Promise<{ count: number; more: boolean }> {
  const search = query.q ? await searchModeOf(query.q, scope) : undefined;
  const limit = exact ? Prisma.empty : Prisma.sql`LIMIT ${cap + 1}`;
  const [row] = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (
      SELECT 1 FROM review_records r
       WHERE ${reviewFilterSql(query, Prisma.sql`r`, search)} ${assigneeCondition(query)}
         ${scopeCondition(scope, Prisma.sql`r`)}
       ${limit}) AS counted`;
  const n = Number(row?.n ?? 0);
  return exact ? { count: n, more: false } : { count: Math.min(n, cap), more: n > cap };
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
