import { db } from "@/lib/db/client";

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

export async function reviewStats(): Promise<ReviewStats> {
  const client = db();
  const [rows, oldest] = await Promise.all([
    client.$queryRaw<Row[]>`
      SELECT status::text AS status, category::text AS category, reason, count(*) AS n
        FROM review_records GROUP BY 1, 2, 3`,
    client.$queryRaw<{ since: Date | null }[]>`
      SELECT min(first_seen_at) AS since FROM review_records WHERE status = 'open'`,
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
