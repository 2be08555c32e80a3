import type { z } from "zod";
import { db } from "@/lib/db/client";
import { ALL_RECORDS, type RecordScope, scopeCondition } from "@/lib/access";
import { Prisma } from "@/lib/generated/prisma/client";
import { ACTION_RULES } from "./action-rules";
import { ACTIVE_STATUSES, ERROR_CLASS_NONE, listQuerySchema } from "./schema";

/**
 * The queue grouped by cause: kind + reason + error class (SQL `review_error_class`). Filters are
 * the list's own (same parsing, same 400s), so a group's numbers and the list it selects agree.
 * Without `status` only the active statuses count: the view answers "what is waiting, and why".
 *
 * Read from review_group_counts, which the database keeps as records change, in the same
 * transaction (migration 20261201040000, docs/decisions/0020-counts-at-scale.md): a few rows per
 * group whatever the size of the queue, where a GROUP BY over the records took seconds at 10M.
 * The view takes no free filter (no `q`), so every count it answers is exact.
 */
export const groupsQuerySchema = listQuerySchema.pick({ status: true, category: true, kind: true, reason: true });
export type GroupsQuery = z.infer<typeof groupsQuerySchema>;

export const MAX_GROUPS = 200;

/**
 * Fields of a group that are estimates, named in every answer (`estimates`). `newestLastSeenAt` is
 * the latest sighting of a record while it was in the group: when the record seen last has left
 * the group since (resolved, or reported again with another reason), it is later than the last
 * sighting of every record still in it.
 */
export type GroupEstimate = "newestLastSeenAt";
export const GROUP_ESTIMATES: readonly GroupEstimate[] = ["newestLastSeenAt"];

export interface ReviewGroup {
  kind: string | null;
  reason: string;
  /** null for records without an error class; select them with `errorClass=(none)`. */
  errorClass: string | null;
  count: number;
  oldestFirstSeenAt: string;
  newestLastSeenAt: string;
  /**
   * How many of the group's records a replay fits now (the action rules' statuses and
   * categories): the grouped view offers "Replay this cause" only where this is above 0.
   */
  replayable: number;
}

interface GroupRow {
  kind: string | null;
  reason: string;
  errorClass: string | null;
  n: bigint;
  replayable: bigint | null;
  oldest: Date | null;
  newest: Date | null;
}

/** The filters as a condition on review_group_counts (the dimensions it keeps). */
function countsWhere(query: GroupsQuery, scope: RecordScope): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`status = ANY(${query.status ?? ACTIVE_STATUSES}::"ReviewStatus"[])`];
  if (query.category) where.push(Prisma.sql`category = ANY(${query.category}::"ReviewCategory"[])`);
  if (query.reason) where.push(Prisma.sql`reason = ${query.reason}`);
  // A group of records without a kind is selected as `kind=(none)`, as in the list.
  if (query.kind === ERROR_CLASS_NONE) where.push(Prisma.sql`kind IS NULL`);
  else if (query.kind) where.push(Prisma.sql`kind = ${query.kind}`);
  return Prisma.sql`${Prisma.join(where, " AND ")} ${scopeCondition(scope)}`;
}

export async function reviewGroups(
  query: GroupsQuery,
  scope: RecordScope = ALL_RECORDS,
): Promise<{ groups: ReviewGroup[]; truncated: boolean; estimates: GroupEstimate[] }> {
  // `cells`: the live (status, category, group) counts the filter selects. `top`: the groups,
  // largest first; ties are broken by the group's key so the order is stable between refreshes.
  // The oldest first sighting is exact: per cell of a returned group, the first entry of
  // review_records_group_first_seen (spelled as that index is, coalesce included).
  // The replay's own rule (lib/reviews/action-rules.ts), so the view offers what the action takes.
  const replay = ACTION_RULES.replay;
  const replayStatuses = replay.statuses === "any" ? ACTIVE_STATUSES : replay.statuses;
  const rows = await db().$queryRaw<GroupRow[]>`
    WITH cells AS (
      SELECT status, category, kind, reason, error_class, sum(n) AS n, max(newest_last_seen_at) AS newest
        FROM review_group_counts
       WHERE ${countsWhere(query, scope)}
       GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0
    ), top AS (
      SELECT kind, reason, error_class, sum(n) AS n, max(newest) AS newest,
             sum(n) FILTER (WHERE status = ANY(${replayStatuses}::"ReviewStatus"[])
                              AND category = ANY(${replay.categories}::"ReviewCategory"[])) AS replayable
        FROM cells GROUP BY 1, 2, 3
       ORDER BY n DESC, kind NULLS LAST, reason, error_class NULLS LAST
       LIMIT ${MAX_GROUPS + 1}
    )
    SELECT t.kind, t.reason, t.error_class AS "errorClass", t.n, t.newest, t.replayable,
           (SELECT min((SELECT r.first_seen_at FROM review_records r
                         WHERE r.status = c.status AND r.category = c.category
                           AND COALESCE(r.kind, '(none)') = COALESCE(c.kind, '(none)') AND r.reason = c.reason
                           AND COALESCE(r.error_class, '(none)') = COALESCE(c.error_class, '(none)')
                         ORDER BY r.first_seen_at LIMIT 1))
              FROM cells c
             WHERE c.kind IS NOT DISTINCT FROM t.kind AND c.reason = t.reason
               AND c.error_class IS NOT DISTINCT FROM t.error_class) AS oldest
      FROM top t
     ORDER BY t.n DESC, t.kind NULLS LAST, t.reason, t.error_class NULLS LAST`;
  return {
    groups: rows.slice(0, MAX_GROUPS).map((row) => {
      // Both are set whenever the group holds a record; the fallbacks only guard a count that
      // ran ahead of its rows (a record inserted with the counts' triggers switched off).
      const oldest = row.oldest ?? row.newest ?? new Date(0);
      return {
        kind: row.kind,
        reason: row.reason,
        errorClass: row.errorClass,
        count: Number(row.n),
        oldestFirstSeenAt: oldest.toISOString(),
        newestLastSeenAt: (row.newest ?? oldest).toISOString(),
        replayable: Number(row.replayable ?? 0),
      };
    }),
    truncated: rows.length > MAX_GROUPS,
    estimates: [...GROUP_ESTIMATES],
  };
}
