import { Prisma } from "@/lib/generated/prisma/client";
import { messageKeyOf } from "./intake";
import { ERROR_CLASS_NONE, type ListQuery } from "./schema";

/** The list's filters (no cursor, no limit): what a filter selects, for the list and for a bulk operation. */
export type ReviewFilter = Omit<ListQuery, "cursor" | "limit">;

const REVIEW_RECORDS = Prisma.sql`review_records`;

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * SQL: the record `alias` (a review_records row) is ready. It joins sequence_state on the key
 * (a key without a state row has applied nothing, so its gap records are not ready). In a WHERE
 * clause the literal status and category let the planner use the partial index
 * `review_records_open_gaps`. The list's `ready` column computes the same rule with a join. The
 * reason too: a replay held again for another reason (an unknown effect) reopens its record with
 * the new reason first and its new category a moment later, and must not look ready meanwhile.
 */
export function readyCondition(alias: Prisma.Sql = REVIEW_RECORDS): Prisma.Sql {
  return Prisma.sql`(${alias}.status = 'open' AND ${alias}.category = 'sequence-gap' AND ${alias}.reason = 'sequence-gap'
    AND ${alias}.sequence_key IS NOT NULL AND ${alias}.sequence IS NOT NULL
    AND EXISTS (SELECT 1 FROM sequence_state ss
                 WHERE ss.sequence_key = ${alias}.sequence_key AND ss.last_sequence >= ${alias}.sequence - 1))`;
}

/**
 * The condition a review filter puts on `review_records` (named `alias` in the query, a
 * `Prisma.sql` fragment such as Prisma.sql`r`): its clauses joined with AND, `TRUE` for no
 * filter, so it always fits after WHERE. One builder, so a bulk operation freezes exactly the
 * records the queue shows for the same filter.
 */
export function reviewFilterSql(filter: ReviewFilter, alias: Prisma.Sql = REVIEW_RECORDS): Prisma.Sql {
  const where: Prisma.Sql[] = [];
  if (filter.status) where.push(Prisma.sql`status = ANY(${filter.status}::"ReviewStatus"[])`);
  if (filter.category) where.push(Prisma.sql`category = ANY(${filter.category}::"ReviewCategory"[])`);
  if (filter.reason) where.push(Prisma.sql`reason = ${filter.reason}`);
  // A group of records without a kind is selected as `kind=(none)`, like an error class.
  if (filter.kind === ERROR_CLASS_NONE) where.push(Prisma.sql`kind IS NULL`);
  else if (filter.kind) where.push(Prisma.sql`kind = ${filter.kind}`);
  if (filter.sequenceKey) where.push(Prisma.sql`sequence_key = ${filter.sequenceKey}`);
  if (filter.effectKey) where.push(Prisma.sql`effect_key = ${filter.effectKey}`);
  if (filter.messageId) where.push(Prisma.sql`message_key = ${messageKeyOf("", filter.messageId)}`);
  if (filter.errorClass === ERROR_CLASS_NONE) where.push(Prisma.sql`error_class IS NULL`);
  else if (filter.errorClass) where.push(Prisma.sql`error_class = ${filter.errorClass}`);
  if (filter.ready) where.push(readyCondition(alias));
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q.toLowerCase())}%`;
    where.push(Prisma.sql`review_search_text(id, message) LIKE ${pattern}`);
  }
  return where.length ? Prisma.join(where, " AND ") : Prisma.sql`TRUE`;
}
