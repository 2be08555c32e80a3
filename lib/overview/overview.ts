import { REVIEW_CATEGORIES, type ReviewCategory } from "@review-console/contract";
import { z } from "zod";
import { db } from "@/lib/db/client";
import type { Grant } from "@/lib/domains/grant";
import {
  ALL_RECORDS,
  operationScopeCondition,
  type RecordScope,
  recordScope,
  scopeCondition,
} from "@/lib/domains/scope";
import { Prisma } from "@/lib/generated/prisma/client";
import { LIVE_OPERATION_STATES, type OperationAction, type OperationState } from "@/lib/operations/types";

/**
 * The overview page's figures (GET /api/v1/overview, docs/decisions/0026-overview-and-charts.md),
 * each read in bounded time whatever the number of records:
 *
 * - arrivals: from review_arrival_counts, the records by hour of first sighting, category, reason
 *   and kind that the database keeps as records change (migration 20261201080000_arrival_counts):
 *   at most hours x groups rows, never the records themselves. Exact.
 * - open records by category: review_record_counts (ADR 0016). Exact.
 * - the oldest open record: the first entry of review_records_open_first_seen_at. Exact.
 * - time to resolution per cause: over the newest RESOLUTION_SAMPLE records finished in the window
 *   (the finished_at index), so a busy month costs the same as a quiet one. Exact when the window
 *   holds no more than that; otherwise an estimate, named in `estimates`.
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
export const RESOLUTION_SAMPLE = 10_000;
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
    /** True when the window held more finished records than RESOLUTION_SAMPLE: the newest were used. */
    sampled: boolean;
    sampleLimit: number;
    causes: ResolutionCause[];
    /** True when there were more than MAX_RESOLUTION_CAUSES causes. */
    truncated: boolean;
  };
  operations: { inFlight: number; byState: Record<string, number>; items: OverviewOperation[] };
  /**
   * Whose records these are: every domain (`domains` null), with the open records whose kind is
   * in no domain, which only global grants reach; or the reader's domains (and no such count).
   */
  scope: { domains: string[] | null; openInNoDomain: number | null };
  /** The parts of the answer that are estimates rather than exact figures. */
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

interface ArrivalRow {
  bucket: Date;
  category: string | null;
  reason: string | null;
  kind: string | null;
  /** GROUPING(category, reason, kind): 3 = by category, 5 = by reason, 6 = by kind. */
  grouping: number;
  n: bigint;
}

export async function arrivals(
  window: OverviewWindow,
  from: Date,
  scope: RecordScope = ALL_RECORDS,
): Promise<Overview["arrivals"]> {
  const { bucket } = WINDOW_SHAPE[window];
  const bucketSql = bucket === "hour" ? Prisma.sql`hour` : Prisma.sql`date_trunc('day', hour, 'UTC')`;
  // One pass over the window's hourly rows, summed per bucket three ways (GROUPING SETS); the
  // grouping bits tell a NULL kind from "not grouped by kind".
  const rows = await db().$queryRaw<ArrivalRow[]>`
    SELECT bucket, category::text AS category, reason, kind,
           GROUPING(category, reason, kind)::int AS grouping, sum(n)::bigint AS n
      FROM (SELECT ${bucketSql} AS bucket, category, reason, kind, n
              FROM review_arrival_counts WHERE hour >= ${from} ${scopeCondition(scope)}) AS hourly
     GROUP BY GROUPING SETS ((bucket, category), (bucket, reason), (bucket, kind))
    HAVING sum(n) <> 0`;
  const starts = bucketStarts(window, from);
  const index = new Map(starts.map((start, i) => [start.getTime(), i]));
  const dimensions = { byCategory: new Map<string, number[]>(), byReason: new Map(), byKind: new Map() } as Record<
    "byCategory" | "byReason" | "byKind",
    Map<string, number[]>
  >;
  let total = 0;
  for (const row of rows) {
    const i = index.get(row.bucket.getTime());
    if (i === undefined) continue; // a first sighting in the future (a clock ahead): outside the window
    const n = Number(row.n);
    const [dimension, key] =
      row.grouping === 3
        ? (["byCategory", row.category ?? ""] as const)
        : row.grouping === 5
          ? (["byReason", row.reason ?? ""] as const)
          : (["byKind", row.kind ?? NO_KIND] as const);
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

export async function openByCategory(scope: RecordScope = ALL_RECORDS): Promise<Overview["open"]> {
  const counts = scope.all ? Prisma.sql`review_record_counts` : Prisma.sql`review_group_counts`;
  const rows = await db().$queryRaw<{ category: string; n: bigint }[]>`
    SELECT category::text AS category, sum(n)::bigint AS n
      FROM ${counts} WHERE status = 'open' ${scopeCondition(scope)} GROUP BY 1 HAVING sum(n) <> 0`;
  const byCategory: Record<string, number> = Object.fromEntries(REVIEW_CATEGORIES.map((c) => [c, 0]));
  let total = 0;
  for (const row of rows) {
    byCategory[row.category] = Number(row.n);
    total += Number(row.n);
  }
  return { total, byCategory };
}

export async function oldestOpen(now: Date, scope: RecordScope = ALL_RECORDS): Promise<Overview["oldestOpen"]> {
  const rows = await db().$queryRaw<
    { id: string; category: ReviewCategory; reason: string; kind: string | null; firstSeenAt: Date }[]
  >`
    SELECT id::text AS id, category::text AS category, reason, kind, first_seen_at AS "firstSeenAt"
      FROM review_records WHERE status = 'open' ${scopeCondition(scope)} ORDER BY first_seen_at, seq LIMIT 1`;
  const row = rows[0];
  if (!row) return null;
  return {
    ...row,
    firstSeenAt: row.firstSeenAt.toISOString(),
    ageSeconds: Math.max(0, Math.floor((now.getTime() - row.firstSeenAt.getTime()) / 1000)),
  };
}

interface ResolutionRow {
  kind: string | null;
  reason: string;
  errorClass: string | null;
  finished: bigint;
  p50: number;
  p95: number;
  considered: bigint;
  more: boolean;
}

export async function resolution(from: Date, scope: RecordScope = ALL_RECORDS): Promise<Overview["resolution"]> {
  // The newest finished records of the window, one more than the sample to tell whether there
  // were more; the percentiles over the sample itself.
  const rows = await db().$queryRaw<ResolutionRow[]>`
    WITH newest AS (
      SELECT kind, reason, error_class, finished_at,
             extract(epoch FROM finished_at - first_seen_at)::float8 AS took
        FROM review_records
       WHERE finished_at IS NOT NULL AND finished_at >= ${from} ${scopeCondition(scope)}
       ORDER BY finished_at DESC
       LIMIT ${RESOLUTION_SAMPLE + 1}
    ), sample AS (
      SELECT * FROM newest ORDER BY finished_at DESC LIMIT ${RESOLUTION_SAMPLE}
    )
    SELECT kind, reason, error_class AS "errorClass", count(*)::bigint AS finished,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY took) AS p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY took) AS p95,
           (SELECT count(*) FROM sample)::bigint AS considered,
           (SELECT count(*) FROM newest) > ${RESOLUTION_SAMPLE} AS more
      FROM sample
     GROUP BY 1, 2, 3
     ORDER BY 4 DESC, 2, 1 NULLS FIRST, 3 NULLS FIRST`;
  const first = rows[0];
  return {
    finished: first ? Number(first.considered) : 0,
    sampled: first?.more ?? false,
    sampleLimit: RESOLUTION_SAMPLE,
    causes: rows.slice(0, MAX_RESOLUTION_CAUSES).map((row) => ({
      kind: row.kind,
      reason: row.reason,
      errorClass: row.errorClass,
      finished: Number(row.finished),
      // Whole seconds are enough for a page that shows minutes and hours.
      p50Seconds: Math.max(0, Math.round(row.p50)),
      p95Seconds: Math.max(0, Math.round(row.p95)),
    })),
    truncated: rows.length > MAX_RESOLUTION_CAUSES,
  };
}

export async function operationsInFlight(grants?: readonly Grant[]): Promise<Overview["operations"]> {
  const live = LIVE_OPERATION_STATES;
  const visible = grants ? operationScopeCondition(grants) : Prisma.empty;
  const [counts, items] = await Promise.all([
    db().$queryRaw<{ state: string; n: bigint }[]>`
      SELECT state::text AS state, count(*)::bigint AS n FROM bulk_operations
       WHERE state = ANY(${live}::"OperationState"[]) ${visible} GROUP BY 1`,
    db().$queryRaw<
      { id: string; action: OperationAction; state: OperationState; total: number; reason: string; createdAt: Date }[]
    >`
      SELECT id::text AS id, action::text AS action, state::text AS state, total, reason, created_at AS "createdAt"
        FROM bulk_operations WHERE state = ANY(${live}::"OperationState"[]) ${visible}
       ORDER BY seq DESC LIMIT ${MAX_OPERATIONS_LISTED}`,
  ]);
  const byState: Record<string, number> = {};
  let inFlight = 0;
  for (const row of counts) {
    byState[row.state] = Number(row.n);
    inFlight += Number(row.n);
  }
  return {
    inFlight,
    byState,
    items: items.map((row) => ({
      ...row,
      total: Number(row.total),
      createdAt: row.createdAt.toISOString(),
    })),
  };
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
 * The whole answer; its parts (exported for bench/overview.ts's breakdown) run side by side.
 * `grants`: the reader's (ADR 0030); without, every domain.
 */
export async function overview(query: OverviewQuery, now = new Date(), grants?: readonly Grant[]): Promise<Overview> {
  const window = query.window ?? "24h";
  const from = windowStart(window, now);
  const scope = grants ? await recordScope(grants, "reviews.read") : ALL_RECORDS;
  const [arrived, open, oldest, resolved, operations, noDomain] = await Promise.all([
    arrivals(window, from, scope),
    openByCategory(scope),
    oldestOpen(now, scope),
    resolution(from, scope),
    operationsInFlight(grants),
    scope.all ? openInNoDomain() : null,
  ]);
  return {
    window,
    generatedAt: now.toISOString(),
    from: from.toISOString(),
    to: now.toISOString(),
    arrivals: arrived,
    open,
    oldestOpen: oldest,
    resolution: resolved,
    operations,
    scope: { domains: scope.all ? null : scope.domains, openInNoDomain: noDomain },
    estimates: resolved.sampled ? ["resolution"] : [],
  };
}
