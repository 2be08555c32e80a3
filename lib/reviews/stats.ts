import { db } from "@/lib/db/client";
import { ALL_RECORDS, type RecordScope, scopeCondition } from "@/lib/access";
import { Prisma } from "@/lib/generated/prisma/client";

export interface ReviewStats {
  total: number;
  byStatus: Record<string, number>;
  byCategory: Record<string, number>;
  byReason: Record<string, number>;
  /** Counts of records still awaiting an outcome (open, replay-scheduled, replaying). */
  active: { byCategory: Record<string, number>; byReason: Record<string, number> };
  oldestOpenAgeSeconds: number | null;
  oldestOpenSince: string | null;
}

interface Row {
  status: string;
  category: string;
  reason: string;
  n: bigint;
}

/**
 * The counts come from review_record_counts, which the database keeps as records change (ADR
 * 0016): a few rows per status, category and reason, however many records there are, where a
 * GROUP BY over review_records took hundreds of ms at 1M. The oldest open record is one index
 * entry (review_records_open_first_seen_at).
 *
 * A caller of some domains only (ADR 0030) gets the same counts summed from review_group_counts,
 * which also keeps the kind, over the kinds of their domains.
 */
export async function reviewStats(scope: RecordScope = ALL_RECORDS): Promise<ReviewStats> {
  const client = db();
  const counts = scope.all ? Prisma.sql`review_record_counts` : Prisma.sql`review_group_counts`;
  const [rows, oldest] = await Promise.all([
    client.$queryRaw<Row[]>`
      SELECT status::text AS status, category::text AS category, reason, sum(n)::bigint AS n
        FROM ${counts} WHERE TRUE ${scopeCondition(scope)} GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
    client.$queryRaw<{ since: Date | null }[]>`
      SELECT min(first_seen_at) AS since FROM review_records WHERE status = 'open' ${scopeCondition(scope)}`,
  ]);
  const stats: ReviewStats = {
    total: 0,
    byStatus: {},
    byCategory: {},
    byReason: {},
    active: { byCategory: {}, byReason: {} },
    oldestOpenAgeSeconds: null,
    oldestOpenSince: null,
  };
  const bump = (bucket: Record<string, number>, key: string, n: number) => {
    bucket[key] = (bucket[key] ?? 0) + n;
  };
  for (const row of rows) {
    const n = Number(row.n);
    stats.total += n;
    bump(stats.byStatus, row.status, n);
    bump(stats.byCategory, row.category, n);
    bump(stats.byReason, row.reason, n);
    if (row.status !== "resolved" && row.status !== "cancelled") {
      bump(stats.active.byCategory, row.category, n);
      bump(stats.active.byReason, row.reason, n);
    }
  }
  const since = oldest[0]?.since ?? null;
  if (since) {
    stats.oldestOpenSince = since.toISOString();
    stats.oldestOpenAgeSeconds = Math.max(0, Math.floor((Date.now() - since.getTime()) / 1000));
  }
  return stats;
}
