import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { Refusal } from "@/lib/domain/refusal";
import { auditCursor } from "@/lib/domain/seq-cursor";
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
 * What the `actor` and `action` filters matched (resolveAuditTerms): the exact values of the
 * column to select. Absent: the filter is taken as given (an exact value).
 */
export interface AuditTerms {
  actors?: string[];
  actions?: string[];
}

function termCondition(column: "actor" | "action", values: string[]): Prisma.Sql {
  if (values.length === 0) return Prisma.sql`FALSE`;
  const ref = Prisma.raw(column);
  return values.length === 1 ? Prisma.sql`${ref} = ${values[0]}` : Prisma.sql`${ref} = ANY(${values}::text[])`;
}

/** Past this many matching actors (or actions), a term is too broad: the person is asked to narrow it. */
export const MAX_TERM_MATCHES = 50;

/** How long the distinct actors and actions are reused before they are read again. */
const DISTINCT_TTL_MS = 30_000;
const distinctCache = new Map<"actor" | "action", { at: number; values: Promise<string[]> }>();

/**
 * The distinct values of `actor` or `action`, read by a skip scan of their `(column, seq)` index:
 * one index probe per distinct value, not a pass over the log (a few hundred people, tokens and
 * actions against 30,000,000 entries, ADR 0020). The Action filter's choices reuse a read for a
 * moment per process; `fresh` (the filter itself) reads again.
 */
export function distinctAuditValues(column: "actor" | "action", fresh = false): Promise<string[]> {
  const cached = distinctCache.get(column);
  if (!fresh && cached && Date.now() - cached.at < DISTINCT_TTL_MS) return cached.values;
  const ref = Prisma.raw(column);
  const values = db().$queryRaw<{ v: string }[]>`
      WITH RECURSIVE walk AS (
        (SELECT ${ref} AS v FROM decision_log ORDER BY ${ref} LIMIT 1)
        UNION ALL
        SELECT (SELECT ${ref} FROM decision_log WHERE ${ref} > walk.v ORDER BY ${ref} LIMIT 1) FROM walk
         WHERE walk.v IS NOT NULL
      )
      SELECT v FROM walk WHERE v IS NOT NULL`.then((rows) => rows.map((row) => row.v));
  distinctCache.set(column, { at: Date.now(), values });
  values.catch(() => distinctCache.delete(column));
  return values;
}

/**
 * The `actor` and `action` filters as a person types them: a value of the log exactly (as
 * before), else every value that contains the term, ignoring case (`support` finds
 * `user:support@demo.local` and `token:support-bot`; `replay` every replay action). The match is
 * made against the distinct values, so the query itself stays on the `(column, seq)` indexes.
 * A term matching more than MAX_TERM_MATCHES values is refused (400 naming the field).
 */
export async function resolveAuditTerms(filter: Pick<AuditFilter, "actor" | "action">): Promise<AuditTerms> {
  const terms: AuditTerms = {};
  for (const [field, column, key] of [
    ["actor", "actor", "actors"],
    ["action", "action", "actions"],
  ] as const) {
    const term = filter[field];
    if (!term) continue;
    // Read afresh (not the choices' cache): an actor or action that appeared a moment ago counts.
    const values = await distinctAuditValues(column, true);
    if (values.includes(term)) {
      terms[key] = [term];
      continue;
    }
    const needle = term.toLowerCase();
    const matches = values.filter((value) => value.toLowerCase().includes(needle));
    if (matches.length > MAX_TERM_MATCHES) {
      const message = `matches ${matches.length} ${field}s (at most ${MAX_TERM_MATCHES}): type more of it`;
      throw new Refusal("invalid", "invalid-request", `${field}: ${message}`, { issues: [{ path: field, message }] });
    }
    terms[key] = matches;
  }
  return terms;
}

/**
 * The condition the filters put on decision_log: its clauses joined with AND, `TRUE` for no
 * filter, so it always fits after WHERE. Each equality filter has a `(column, seq)` index, so a
 * page walks one index backwards from the cursor. `from`/`to` are seq bounds when `window`
 * translated them (the primary key, or the `(column, seq)` index, walks only the window), else
 * conditions on `at`.
 */
export function auditWhere(filter: AuditFilter, window: SeqWindow = {}, terms: AuditTerms = {}): Prisma.Sql {
  const where: Prisma.Sql[] = [];
  if (terms.actors) where.push(termCondition("actor", terms.actors));
  else if (filter.actor) where.push(Prisma.sql`actor = ${filter.actor}`);
  if (terms.actions) where.push(termCondition("action", terms.actions));
  else if (filter.action) where.push(Prisma.sql`action = ${filter.action}`);
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
  const terms = await resolveAuditTerms(query);
  const where = auditWhere(query, window, terms);
  // Several matching values: one walk of the (column, seq) index per value, each stopping after a
  // page, merged by seq. A single `= ANY(...)` would read every matching entry and sort them.
  const driver =
    terms.actors && terms.actors.length > 1
      ? { column: Prisma.raw("actor"), values: terms.actors }
      : terms.actions && terms.actions.length > 1
        ? { column: Prisma.raw("action"), values: terms.actions }
        : null;
  const rows = driver
    ? await db().$queryRaw<AuditRow[]>`
        SELECT d.* FROM unnest(${driver.values}::text[]) AS m(v)
         CROSS JOIN LATERAL (
           SELECT ${AUDIT_COLUMNS} FROM decision_log
            WHERE ${driver.column} = m.v AND ${where} ${before}
            ORDER BY seq DESC LIMIT ${limit + 1}) AS d
         ORDER BY d.seq DESC
         LIMIT ${limit + 1}`
    : await db().$queryRaw<AuditRow[]>`
        SELECT ${AUDIT_COLUMNS}
          FROM decision_log
         WHERE ${where} ${before}
         ORDER BY seq DESC
         LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toAuditEntry),
    nextCursor: rows.length > limit && last ? auditCursor.encode(last.seq) : null,
  };
}
