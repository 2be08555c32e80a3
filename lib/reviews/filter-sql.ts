import { db } from "@/lib/db/client";
import { ALL_RECORDS, type RecordScope, scopeCondition } from "@/lib/access";
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
 * records the queue shows for the same filter. `search`: `q`'s mode when the caller has asked
 * `searchModeOf` (the list does, so its query carries only the indexable condition of that mode).
 * `scope`: the caller's records, within which `q`'s mode is decided when `search` is not given.
 */
export function reviewFilterSql(
  filter: ReviewFilter,
  alias: Prisma.Sql = REVIEW_RECORDS,
  search?: SearchMode,
  scope: RecordScope = ALL_RECORDS,
): Prisma.Sql {
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
  if (filter.q) where.push(searchCondition(filter.q, alias, search, scope));
  return where.length ? Prisma.join(where, " AND ") : Prisma.sql`TRUE`;
}

/*
 * `q` (docs/api.md): when it is exactly the id, message id, effect key or sequence key of some
 * record (an "exact term"), it selects the records with that id or key; otherwise it is a
 * case-insensitive substring search over the message text, the reason, the required check and
 * the last error, plus the records whose id starts with it.
 *
 * Why two modes: the substring search is a trigram index scan, whose cost is the length of the
 * posting lists of the term's trigrams. An id-like term shares most of its trigrams with every
 * record ("msg-", a producer's prefix, the JSON keys), so at 1,000,000 records a message id cost
 * 100-250 ms to find, while a B-tree lookup on the key costs well under a millisecond. Someone who
 * pastes a whole key wants the records with that key. Which mode applies depends on the term and
 * the caller's scope only, never on the other filters or the cursor, so filters narrow the same
 * set and the pages of one list are consistent. Within the scope: decided over every record, the
 * mode would tell a caller of one domain that a key exists in another (ADR 0030).
 */

/** How `q` selects: the records with that exact id/key, or by substring search. */
export type SearchMode = "exact" | "text";

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The conditions "q is this record's id / message id / effect key / sequence key" on `alias`:
 * one per B-tree index, kept as separate arms so the planner can OR their bitmaps. The id arm
 * only for a UUID-shaped term: casting anything else to uuid would be an error.
 */
function exactTermArms(q: string, alias: Prisma.Sql): Prisma.Sql[] {
  const arms = [
    Prisma.sql`${alias}.message_key = ${messageKeyOf("", q)}`,
    Prisma.sql`${alias}.effect_key = ${q}`,
    Prisma.sql`${alias}.sequence_key = ${q}`,
  ];
  if (UUID_SHAPE.test(q)) arms.unshift(Prisma.sql`${alias}.id = ${q}::uuid`);
  return arms;
}

function exactTermExists(q: string, scope: RecordScope): Prisma.Sql {
  const hit = Prisma.sql`exact_hit`;
  return Prisma.sql`EXISTS (SELECT 1 FROM review_records exact_hit
    WHERE (${Prisma.join(exactTermArms(q, hit), " OR ")}) ${scopeCondition(scope, hit)})`;
}

const UUID_TEMPLATE = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

/**
 * The ids that start with `q` as a range of the primary key, when `q` is the start of a UUID (the
 * console shows ids by their first 8 characters): `[q000…, qfff…]`. Null for any other term.
 */
export function idPrefixRange(q: string): { from: string; to: string } | null {
  const term = q.toLowerCase();
  if (term.length > UUID_TEMPLATE.length) return null;
  for (let i = 0; i < term.length; i++) {
    if (UUID_TEMPLATE[i] === "-" ? term[i] !== "-" : !/[0-9a-f]/.test(term[i]!)) return null;
  }
  const hex = term.replaceAll("-", "");
  const uuid = (digits: string) =>
    [digits.slice(0, 8), digits.slice(8, 12), digits.slice(12, 16), digits.slice(16, 20), digits.slice(20)].join("-");
  return { from: uuid(hex.padEnd(32, "0")), to: uuid(hex.padEnd(32, "f")) };
}

/**
 * Case-insensitive substring of the message text, the reason, the required check and the last
 * error (one trigram index over SQL `review_search_text`), or an id that starts with `q` (the
 * primary key). The id is not in the trigram text: its random digits were the costliest part of
 * that index to maintain at intake, and no one types the middle of a UUID
 * (docs/decisions/0045-error-class-by-shape.md).
 */
function textSearchCondition(q: string, alias: Prisma.Sql): Prisma.Sql {
  const pattern = `%${escapeLike(q.toLowerCase())}%`;
  const text = Prisma.sql`review_search_text(${alias}.message, ${alias}.reason, ${alias}.required_check,
    ${alias}.last_error) LIKE ${pattern}`;
  const ids = idPrefixRange(q);
  return ids ? Prisma.sql`(${text} OR ${alias}.id BETWEEN ${ids.from}::uuid AND ${ids.to}::uuid)` : text;
}

/**
 * The mode of a term among the records of `scope`: one indexed EXISTS (B-tree lookups only). The
 * list asks it first and then sends only that mode's condition, which the planner can cost with
 * the real term.
 */
export async function searchModeOf(q: string, scope: RecordScope = ALL_RECORDS): Promise<SearchMode> {
  const rows = await db().$queryRaw<{ hit: boolean }[]>`SELECT ${exactTermExists(q, scope)} AS hit`;
  return rows[0]?.hit ? "exact" : "text";
}

/**
 * `q`'s condition. With a known mode, just that mode's condition. Without (callers that did not
 * ask), both modes guarded by the same EXISTS, evaluated once per statement: the same records,
 * but the trigram scan is paid whichever mode applies. Each arm keeps one indexable clause, so
 * the whole OR can still be a BitmapOr.
 */
function searchCondition(q: string, alias: Prisma.Sql, mode: SearchMode | undefined, scope: RecordScope): Prisma.Sql {
  if (mode === "exact") return Prisma.sql`(${Prisma.join(exactTermArms(q, alias), " OR ")})`;
  if (mode === "text") return textSearchCondition(q, alias);
  const exists = exactTermExists(q, scope);
  const arms = exactTermArms(q, alias).map((arm) => Prisma.sql`(${arm} AND ${exists})`);
  arms.push(Prisma.sql`(${textSearchCondition(q, alias)} AND NOT ${exists})`);
  return Prisma.sql`(${Prisma.join(arms, " OR ")})`;
}
