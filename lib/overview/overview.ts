import { REVIEW_CATEGORIES, type ReviewCategory } from "@review-console/contract";
import { z } from "zod";
import { db } from "@/lib/db/client";
import type { Grant } from "@/lib/access/client";
import { ALL_RECORDS, operationScopeCondition, type RecordScope, recordScope, scopeCondition } from "@/lib/access";
import { Prisma } from "@/lib/generated/prisma/client";
import { LIVE_OPERATION_STATES, type OperationAction, type OperationState } from "@/lib/operations";

/**
 * The overview page's figures (GET /api/v1/overview, docs/decisions/0026-overview-and-charts.md),
 * each read in bounded time whatever the number of records:
 *
 * - arrivals: from review_arrival_counts, the records by hour of first sighting, category, reason
 *   and kind that the database keeps as records change (migration 20261201080000_arrival_counts):
 *   24 hours x groups rows for 24 hours, never the records themselves. The 7- and 30-day windows
 *   read review_arrival_day_counts (migration 20261202070000_arrival_day_counts) and the hourly
 *   rows not yet folded into it: days x groups rows, 24 times fewer. Exact.
 * - open records by category: review_record_counts (ADR 0016). Exact.
 * - the oldest open record: the first entry of review_records_open_first_seen_at. Exact.
 * - time to resolution per cause: over the newest RESOLUTION_SAMPLE records finished in the window
 *   (an index-only scan of the covering finished_at index), so a busy month costs the same as a
 *   quiet one. Exact when the window holds no more than that; otherwise an estimate, named in
 *   `estimates`.
 * - operations in flight: bulk_operations in a live state (a handful of rows).
 *
 * Domains (ADR 0030): a reader of some domains only gets every figure over the kinds of their
 * domains (`kind = ANY(...)` on the counts tables and the indexes; open records from
 * review_group_counts, which keeps the kind), and the operations they may read. A reader of every
 * domain is told how many open records lie in no domain (`scope.openInNoDomain`).
 */

export const OVERVIEW_WINDOWS = ["24h", "7d", "30d"] as const;
export type OverviewWindow = (typeof OVERVIEW_WINDOWS)[number];

export const overviewQuerySchema = z.object({
  window: z
    .enum(OVERVIEW_WINDOWS)
    .optional()
    .meta({ description: "The time window: the last 24 hours (by hour, the default), 7 or 30 days (by day)." }),
});
export type OverviewQuery = z.infer<typeof overviewQuerySchema>;

/** The records finished in the window that time to resolution is computed over, newest first. */
export const RESOLUTION_SAMPLE = 5_000;
/** Causes listed for time to resolution, most finished records first. */
export const MAX_RESOLUTION_CAUSES = 50;
/** Operations listed as in flight, newest first (the count covers all of them). */
export const MAX_OPERATIONS_LISTED = 10;
/** How a missing kind is spelled, as in the queue's filters and groups. */
export const NO_KIND = "(none)";

const WINDOW_SHAPE: Record<OverviewWindow, { bucket: "hour" | "day"; buckets: number }> = {
  "24h": { bucket: "hour", buckets: 24 },
  "7d": { bucket: "day", buckets: 7 },
  "30d": { bucket: "day", buckets: 30 },
};

export interface ArrivalSeries {
  key: string;
  total: number;
  /** One count per bucket, in the order of `buckets`. */
  counts: number[];
}

export interface ResolutionCause {
  kind: string | null;
  reason: string;
  errorClass: string | null;
  finished: number;
  p50Seconds: number;
  p95Seconds: number;
}

export interface OverviewOperation {
  id: string;
  action: OperationAction;
  state: OperationState;
  total: number;
  reason: string;
  createdAt: string;
}

export interface Overview {
  window: OverviewWindow;
  generatedAt: string;
  /** The window: from the start of its first bucket (UTC) up to now (the last bucket is partial). */
  from: string;
  to: string;
  arrivals: {
    bucket: "hour" | "day";
    /** The start of each bucket (UTC). */
    buckets: string[];
    total: number;
    byCategory: ArrivalSeries[];
    byReason: ArrivalSeries[];
    byKind: ArrivalSeries[];
  };
  open: { total: number; byCategory: Record<string, number> };
  oldestOpen: {
    id: string;
    category: ReviewCategory;
    reason: string;
    kind: string | null;
    firstSeenAt: string;
    ageSeconds: number;
  } | null;
  resolution: {
    /** Records finished (resolved or cancelled) in the window that the percentiles were computed over. */
    finished: number;
    /** True when the sample is full (RESOLUTION_SAMPLE records): the window may hold more; the newest were used. */
    sampled: boolean;
    sampleLimit: number;
    causes: ResolutionCause[];
    /** True when there were more than MAX_RESOLUTION_CAUSES causes. */
    truncated: boolean;
  };
  operations: { inFlight: number; byState: Record<string, number>; items: OverviewOperation[] };
  /** The parts of the answer that are estimates rather than exact figures. */
  /**
   * Whose records these are: every domain (`domains` null), with the open records whose kind is
   * in no domain, which only global grants reach; or the reader's domains (and no such count).
   */
  scope: { domains: string[] | null; openInNoDomain: number | null };
  estimates: "resolution"[];
}

/** The first bucket's start: the current hour (or UTC day) minus the window's other buckets. */
export function windowStart(window: OverviewWindow, now: Date): Date {
  const { bucket, buckets } = WINDOW_SHAPE[window];
  const start = new Date(now);
  if (bucket === "hour") {
    start.setUTCMinutes(0, 0, 0);
    start.setUTCHours(start.getUTCHours() - (buckets - 1));
  } else {
    start.setUTCHours(0, 0, 0, 0);
    start.setUTCDate(start.getUTCDate() - (buckets - 1));
  }
  return start;
}

function bucketStarts(window: OverviewWindow, from: Date): Date[] {
  const { bucket, buckets } = WINDOW_SHAPE[window];
  const step = bucket === "hour" ? 3_600_000 : 86_400_000;
  return Array.from({ length: buckets }, (_, i) => new Date(from.getTime() + i * step));
}

/**
 * One summed row of the arrivals: the bucket's start (epoch ms), GROUPING(category, reason, kind)
 * (3 = by category, 5 = by reason, 6 = by kind: the bits tell a NULL kind from "not grouped by
 * kind"), the category, reason or kind it counts, and the count.
 */
type ArrivalRow = [bucketMs: number, grouping: number, key: string | null, n: number];

/**
 * The window's counted rows as (bucket, category, reason, kind, n). By hour: the hourly rows. By
 * day: the day rows, plus the hourly rows the last compaction has not folded into them yet (their
 * partial index); in one snapshot the two add up to every record exactly once (see the migration).
 */
function countedRows(bucket: "hour" | "day", from: Date, scope: RecordScope): Prisma.Sql {
  if (bucket === "hour") {
    return Prisma.sql`SELECT hour AS bucket, category, reason, kind, n FROM review_arrival_counts WHERE hour >= ${from} ${scopeCondition(scope)}`;
  }
  return Prisma.sql`
    SELECT day AS bucket, category, reason, kind, n FROM review_arrival_day_counts WHERE day >= ${from} ${scopeCondition(scope)}
    UNION ALL
    SELECT date_trunc('day', hour, 'UTC'), category, reason, kind, n
      FROM review_arrival_counts WHERE NOT folded AND hour >= ${from} ${scopeCondition(scope)}`;
}

export async function arrivals(
  window: OverviewWindow,
  from: Date,
  scope: RecordScope = ALL_RECORDS,
): Promise<Overview["arrivals"]> {
  const { bucket } = WINDOW_SHAPE[window];
  // One pass over the window's rows, summed per bucket three ways (GROUPING SETS), answered as one
  // JSON array: a few hundred rows decoded by Prisma one by one cost more than the query (bench/README.md).
  const [{ rows }] = await db().$queryRaw<[{ rows: ArrivalRow[] }]>`
    SELECT coalesce(json_agg(json_build_array(ms, grouping, key, n)), '[]') AS rows
      FROM (SELECT (extract(epoch FROM bucket) * 1000)::bigint AS ms, GROUPING(category, reason, kind) AS grouping,
                   CASE GROUPING(category, reason, kind) WHEN 3 THEN category::text WHEN 5 THEN reason ELSE kind END AS key,
                   sum(n) AS n
              FROM (${countedRows(bucket, from, scope)}) AS counted
             GROUP BY GROUPING SETS ((bucket, category), (bucket, reason), (bucket, kind))
            HAVING sum(n) <> 0) AS summed`;
  const starts = bucketStarts(window, from);
  const index = new Map(starts.map((start, i) => [start.getTime(), i]));
  const dimensions = { byCategory: new Map<string, number[]>(), byReason: new Map(), byKind: new Map() } as Record<
    "byCategory" | "byReason" | "byKind",
    Map<string, number[]>
  >;
  let total = 0;
  for (const [bucketMs, grouping, rowKey, n] of rows) {
    const i = index.get(bucketMs);
    if (i === undefined) continue; // a first sighting in the future (a clock ahead): outside the window
    const [dimension, key] =
      grouping === 3
        ? (["byCategory", rowKey ?? ""] as const)
        : grouping === 5
          ? (["byReason", rowKey ?? ""] as const)
          : (["byKind", rowKey ?? NO_KIND] as const);
    const counts = dimensions[dimension].get(key) ?? new Array<number>(starts.length).fill(0);
    counts[i] = (counts[i] ?? 0) + n;
    dimensions[dimension].set(key, counts);
    if (dimension === "byCategory") total += n;
  }
  const series = (map: Map<string, number[]>): ArrivalSeries[] =>
    [...map]
      .map(([key, counts]) => ({ key, counts, total: counts.reduce((a, b) => a + b, 0) }))
      .filter((s) => s.total !== 0)
      .sort((a, b) => b.total - a.total || a.key.localeCompare(b.key));
  return {
    bucket,
    buckets: starts.map((start) => start.toISOString()),
    total,
    byCategory: series(dimensions.byCategory),
    byReason: series(dimensions.byReason),
    byKind: series(dimensions.byKind),
  };
}

/** The figures of the overview that are "now" rather than a window: open records, the oldest, operations. */
export type CurrentState = Pick<Overview, "open" | "oldestOpen" | "operations">;

interface CurrentStateRow {
  open: Record<string, number>;
  oldest: { id: string; category: ReviewCategory; reason: string; kind: string | null; firstSeenAt: string } | null;
  operationStates: Record<string, number>;
  operations: {
    id: string;
    action: OperationAction;
    state: OperationState;
    total: number;
    reason: string;
    createdAt: string;
  }[];
}

/**
 * Open records by category (review_record_counts, exact), the oldest open record (the first entry
 * of review_records_open_first_seen_at) and the operations in flight (a handful of rows): each a
 * few rows, so one statement answering JSON rather than four round trips.
 */
export async function currentState(
  now: Date,
  scope: RecordScope = ALL_RECORDS,
  grants?: readonly Grant[],
): Promise<CurrentState> {
  const live = LIVE_OPERATION_STATES;
  // A scoped reader's open counts come from review_group_counts, which keeps the kind.
  const counts = scope.all ? Prisma.sql`review_record_counts` : Prisma.sql`review_group_counts`;
  const visible = grants ? operationScopeCondition(grants) : Prisma.empty;
  const [row] = await db().$queryRaw<[CurrentStateRow]>`
    SELECT
      (SELECT coalesce(json_object_agg(category, n), '{}')
         FROM (SELECT category::text AS category, sum(n) AS n FROM ${counts}
                WHERE status = 'open' ${scopeCondition(scope)} GROUP BY 1 HAVING sum(n) <> 0) AS c) AS open,
      (SELECT json_build_object('id', id::text, 'category', category::text, 'reason', reason, 'kind', kind,
                                'firstSeenAt', first_seen_at)
         FROM review_records WHERE status = 'open' ${scopeCondition(scope)}
        ORDER BY first_seen_at, seq LIMIT 1) AS oldest,
      (SELECT coalesce(json_object_agg(state, n), '{}')
         FROM (SELECT state::text AS state, count(*) AS n FROM bulk_operations
                WHERE state = ANY(${live}::"OperationState"[]) ${visible} GROUP BY 1) AS s) AS "operationStates",
      (SELECT coalesce(json_agg(o), '[]')
         FROM (SELECT id::text AS id, action::text AS action, state::text AS state, total, reason,
                      created_at AS "createdAt"
                 FROM bulk_operations WHERE state = ANY(${live}::"OperationState"[]) ${visible}
                ORDER BY seq DESC LIMIT ${MAX_OPERATIONS_LISTED}) AS o) AS operations`;
  const byCategory: Record<string, number> = Object.fromEntries(REVIEW_CATEGORIES.map((c) => [c, 0]));
  let open = 0;
  for (const [category, n] of Object.entries(row.open)) {
    byCategory[category] = Number(n);
    open += Number(n);
  }
  const byState: Record<string, number> = {};
  let inFlight = 0;
  for (const [state, n] of Object.entries(row.operationStates)) {
    byState[state] = Number(n);
    inFlight += Number(n);
  }
  const oldest = row.oldest;
  const firstSeen = oldest ? new Date(oldest.firstSeenAt) : null;
  return {
    open: { total: open, byCategory },
    oldestOpen:
      oldest && firstSeen
        ? {
            ...oldest,
            firstSeenAt: firstSeen.toISOString(),
            ageSeconds: Math.max(0, Math.floor((now.getTime() - firstSeen.getTime()) / 1000)),
          }
        : null,
    operations: {
      inFlight,
      byState,
      items: row.operations.map((op) => ({
        ...op,
        total: Number(op.total),
        createdAt: new Date(op.createdAt).toISOString(),
      })),
    },
  };
}

/** One cause of the sample: kind, reason, error class, records, p50 and p95 in seconds. */
type ResolutionRow = [
  kind: string | null,
  reason: string,
  errorClass: string | null,
  finished: number,
  p50: number,
  p95: number,
];

export async function resolution(from: Date, scope: RecordScope = ALL_RECORDS): Promise<Overview["resolution"]> {
  // The newest finished records of the window, read from the covering index alone, and two
  // percentiles per cause over them. Its cost is the sample's size, whatever the table's
  // (bench/README.md: about 1.3 ms of database CPU per 1,000 records sampled). Answered as one
  // JSON array, like the arrivals.
  const [{ rows }] = await db().$queryRaw<[{ rows: ResolutionRow[] }]>`
    SELECT coalesce(json_agg(json_build_array(kind, reason, error_class, finished, p50, p95)), '[]') AS rows
      FROM (SELECT kind, reason, error_class, count(*) AS finished,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY took) AS p50,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY took) AS p95
              FROM (SELECT kind, reason, error_class,
                           extract(epoch FROM finished_at - first_seen_at)::float8 AS took
                      FROM review_records
                     WHERE finished_at IS NOT NULL AND finished_at >= ${from} ${scopeCondition(scope)}
                     ORDER BY finished_at DESC
                     LIMIT ${RESOLUTION_SAMPLE}) AS sample
             GROUP BY 1, 2, 3) AS causes`;
  const causes = rows
    .map(([kind, reason, errorClass, finished, p50, p95]) => ({
      kind,
      reason,
      errorClass,
      finished,
      // Whole seconds are enough for a page that shows minutes and hours.
      p50Seconds: Math.max(0, Math.round(p50)),
      p95Seconds: Math.max(0, Math.round(p95)),
    }))
    // Most finished first, then as the page lists causes (reason, kind, error class; none first).
    .sort(
      (a, b) =>
        b.finished - a.finished ||
        compareText(a.reason, b.reason) ||
        compareText(a.kind, b.kind) ||
        compareText(a.errorClass, b.errorClass),
    );
  const finished = causes.reduce((sum, cause) => sum + cause.finished, 0);
  return {
    finished,
    // A full sample: the window may hold more (it is exact only if it held exactly that many).
    // Said without reading the index a second time to find out.
    sampled: finished >= RESOLUTION_SAMPLE,
    sampleLimit: RESOLUTION_SAMPLE,
    causes: causes.slice(0, MAX_RESOLUTION_CAUSES),
    truncated: causes.length > MAX_RESOLUTION_CAUSES,
  };
}

/** Text order by code unit, null first (as `NULLS FIRST`): the same on every database. */
function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/**
 * Open records whose kind is in no domain (or that have no kind): per distinct kind of the open
 * counts, so domain_of_kind runs once per kind.
 */
export async function openInNoDomain(): Promise<number> {
  const rows = await db().$queryRaw<{ n: bigint | null }[]>`
    SELECT sum(k.n)::bigint AS n
      FROM (SELECT kind, sum(n) AS n FROM review_group_counts WHERE status = 'open'
             GROUP BY kind HAVING sum(n) <> 0) k
     WHERE public.domain_of_kind(k.kind) IS NULL`;
  return Number(rows[0]?.n ?? 0);
}

/**
 * The whole answer; its reads (exported for bench/overview.ts's breakdown) run side by side.
 * `grants`: the reader's (ADR 0030); without, every domain.
 */
export async function overview(query: OverviewQuery, now = new Date(), grants?: readonly Grant[]): Promise<Overview> {
  const window = query.window ?? "24h";
  const from = windowStart(window, now);
  const scope = grants ? await recordScope(grants, "reviews.read") : ALL_RECORDS;
  const [arrived, resolved, state, noDomain] = await Promise.all([
    arrivals(window, from, scope),
    resolution(from, scope),
    currentState(now, scope, grants),
    scope.all ? openInNoDomain() : null,
  ]);
  return {
    window,
    generatedAt: now.toISOString(),
    from: from.toISOString(),
    to: now.toISOString(),
    arrivals: arrived,
    open: state.open,
    oldestOpen: state.oldestOpen,
    resolution: resolved,
    operations: state.operations,
    scope: { domains: scope.all ? null : scope.domains, openInNoDomain: noDomain },
    estimates: resolved.sampled ? ["resolution"] : [],
  };
}
