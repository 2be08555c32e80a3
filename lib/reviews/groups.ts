import type { z } from "zod";
import { db } from "@/lib/db/client";
import { reviewFilterSql } from "./filter-sql";
import { ACTIVE_STATUSES, listQuerySchema } from "./schema";

/**
 * The queue grouped by cause: kind + reason + error class (SQL `review_error_class`). Filters are
 * the list's own (same parsing, same 400s), so a group's numbers and the list it selects agree.
 * Without `status` only the active statuses count: the view answers "what is waiting, and why".
 */
export const groupsQuerySchema = listQuerySchema.pick({ status: true, category: true, kind: true, reason: true });
export type GroupsQuery = z.infer<typeof groupsQuerySchema>;

export const MAX_GROUPS = 200;

export interface ReviewGroup {
  kind: string | null;
  reason: string;
  /** null for records without an error class; select them with `errorClass=(none)`. */
  errorClass: string | null;
  count: number;
  oldestFirstSeenAt: string;
  newestLastSeenAt: string;
}

interface GroupRow {
  kind: string | null;
  reason: string;
  errorClass: string | null;
  n: bigint;
  oldest: Date;
  newest: Date;
}

export async function reviewGroups(query: GroupsQuery): Promise<{ groups: ReviewGroup[]; truncated: boolean }> {
  // The list's own filter builder, so a group selects exactly the records its list link shows.
  const where = reviewFilterSql({ ...query, status: query.status ?? ACTIVE_STATUSES });
  // Ties are broken by the group's key so the order is stable between refreshes.
  const rows = await db().$queryRaw<GroupRow[]>`
    SELECT kind, reason, error_class AS "errorClass", count(*) AS n, min(first_seen_at) AS oldest,
           max(last_seen_at) AS newest
      FROM review_records
     WHERE ${where}
     GROUP BY kind, reason, error_class
     ORDER BY n DESC, kind NULLS LAST, reason, error_class NULLS LAST
     LIMIT ${MAX_GROUPS + 1}`;
  return {
    groups: rows.slice(0, MAX_GROUPS).map((row) => ({
      kind: row.kind,
      reason: row.reason,
      errorClass: row.errorClass,
      count: Number(row.n),
      oldestFirstSeenAt: row.oldest.toISOString(),
      newestLastSeenAt: row.newest.toISOString(),
    })),
    truncated: rows.length > MAX_GROUPS,
  };
}
