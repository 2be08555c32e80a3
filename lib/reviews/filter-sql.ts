import { messageKeyOf } from "./intake";
import { ERROR_CLASS_NONE, type ListQuery } from "./schema";

/** The list's filters (no cursor, no limit): what a filter selects, for the list and for a bulk operation. */
export type ReviewFilter = Omit<ListQuery, "cursor" | "limit">;

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
export function readyCondition(alias: string): string {
  return `(${alias}.status = 'open' AND ${alias}.category = 'sequence-gap' AND ${alias}.reason = 'sequence-gap'
    AND ${alias}.sequence_key IS NOT NULL AND ${alias}.sequence IS NOT NULL
    AND EXISTS (SELECT 1 FROM sequence_state ss
                 WHERE ss.sequence_key = ${alias}.sequence_key AND ss.last_sequence >= ${alias}.sequence - 1))`;
}

/**
 * The WHERE clauses of a review filter over `review_records` (named `alias` in the query), with
 * their parameters appended to `params` (placeholders numbered after what `params` already
 * holds). One builder, so a bulk operation freezes exactly the records the queue shows for the
 * same filter.
 */
export function reviewFilterSql(filter: ReviewFilter, params: unknown[], alias = "review_records"): string[] {
  const where: string[] = [];
  const add = (clause: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (filter.status) add((p) => `status = ANY(${p}::"ReviewStatus"[])`, filter.status);
  if (filter.category) add((p) => `category = ANY(${p}::"ReviewCategory"[])`, filter.category);
  if (filter.reason) add((p) => `reason = ${p}`, filter.reason);
  // A group of records without a kind is selected as `kind=(none)`, like an error class.
  if (filter.kind === ERROR_CLASS_NONE) where.push("kind IS NULL");
  else if (filter.kind) add((p) => `kind = ${p}`, filter.kind);
  if (filter.sequenceKey) add((p) => `sequence_key = ${p}`, filter.sequenceKey);
  if (filter.effectKey) add((p) => `effect_key = ${p}`, filter.effectKey);
  if (filter.messageId) add((p) => `message_key = ${p}`, messageKeyOf("", filter.messageId));
  if (filter.errorClass === ERROR_CLASS_NONE) where.push("error_class IS NULL");
  else if (filter.errorClass) add((p) => `error_class = ${p}`, filter.errorClass);
  if (filter.ready) where.push(readyCondition(alias));
  if (filter.q) add((p) => `review_search_text(id, message) LIKE ${p}`, `%${escapeLike(filter.q.toLowerCase())}%`);
  return where;
}
