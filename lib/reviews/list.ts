import { db } from "@/lib/db/client";
import { messageKeyOf } from "./intake";
import { reviewCursor } from "@/lib/http/seq-cursor";
import { ERROR_CLASS_NONE, type ListQuery, type ReviewStatus } from "./schema";

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
}

/** A list item as the list serves it: the fields of API.md plus the last error and its class. */
export interface ReviewQueueItem extends ReviewListItem {
  /** The class of `lastError` (SQL `review_error_class`), or null. */
  errorClass: string | null;
  lastError: string | null;
}

interface ListRow {
  seq: bigint;
  id: string;
  status: ReviewStatus;
  category: string;
  reason: string;
  kind: string | null;
  message_id: string | null;
  effect_key: string | null;
  sequence_key: string | null;
  sequence: bigint | null;
  attempts: number;
  required_check: string;
  version: number;
  first_seen_at: Date;
  last_seen_at: Date;
  error_class: string | null;
  last_error: string | null;
}

export const DEFAULT_LIMIT = 50;
/** A list shows the start of the last error (the detail has all of it): a page stays small. */
export const LIST_LAST_ERROR_CHARS = 300;

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Newest first by `seq`, keyset-paginated: a page deep in the list costs what the first does,
 * because each page starts from an index position instead of counting past earlier rows.
 */
export async function listReviews(query: ListQuery): Promise<{ items: ReviewQueueItem[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (query.status) add((p) => `status = ANY(${p}::"ReviewStatus"[])`, query.status);
  if (query.category) add((p) => `category = ANY(${p}::"ReviewCategory"[])`, query.category);
  if (query.reason) add((p) => `reason = ${p}`, query.reason);
  // A group of records without a kind is selected as `kind=(none)`, like an error class.
  if (query.kind === ERROR_CLASS_NONE) where.push("kind IS NULL");
  else if (query.kind) add((p) => `kind = ${p}`, query.kind);
  if (query.sequenceKey) add((p) => `sequence_key = ${p}`, query.sequenceKey);
  if (query.effectKey) add((p) => `effect_key = ${p}`, query.effectKey);
  if (query.messageId) add((p) => `message_key = ${p}`, messageKeyOf("", query.messageId));
  if (query.errorClass === ERROR_CLASS_NONE) where.push("error_class IS NULL");
  else if (query.errorClass) add((p) => `error_class = ${p}`, query.errorClass);
  if (query.q) add((p) => `review_search_text(id, message) LIKE ${p}`, `%${escapeLike(query.q.toLowerCase())}%`);
  if (query.cursor) add((p) => `seq < ${p}`, reviewCursor.decode(query.cursor));
  params.push(limit + 1);
  const sql = `SELECT seq, id::text AS id, status::text AS status, category::text AS category, reason, kind,
      message_id, effect_key, sequence_key, sequence, attempts, required_check, version, first_seen_at, last_seen_at,
      error_class, left(last_error, ${LIST_LAST_ERROR_CHARS}) AS last_error
    FROM review_records
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY seq DESC
    LIMIT $${params.length}`;
  const rows = await db().$queryRawUnsafe<ListRow[]>(sql, ...params);
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
    messageId: row.message_id,
    effectKey: row.effect_key,
    sequenceKey: row.sequence_key,
    sequence: row.sequence === null ? null : Number(row.sequence),
    attempts: row.attempts,
    requiredCheck: row.required_check,
    version: row.version,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    errorClass: row.error_class,
    lastError: row.last_error,
  };
}
