import type { z } from "zod";
import { db } from "@/lib/db/client";
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
  error_class: string | null;
  n: bigint;
  oldest: Date;
  newest: Date;
}

export async function reviewGroups(query: GroupsQuery): Promise<{ groups: ReviewGroup[]; truncated: boolean }> {
  const params: unknown[] = [query.status ?? ACTIVE_STATUSES];
  const where = [`status = ANY($1::"ReviewStatus"[])`];
  const add = (clause: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (query.category) add((p) => `category = ANY(${p}::"ReviewCategory"[])`, query.category);
  if (query.kind) add((p) => `kind = ${p}`, query.kind);
  if (query.reason) add((p) => `reason = ${p}`, query.reason);
  params.push(MAX_GROUPS + 1);
  // Ties are broken by the group's key so the order is stable between refreshes.
  const rows = await db().$queryRawUnsafe<GroupRow[]>(
    `SELECT kind, reason, error_class, count(*) AS n, min(first_seen_at) AS oldest, max(last_seen_at) AS newest
       FROM review_records
      WHERE ${where.join(" AND ")}
      GROUP BY kind, reason, error_class
      ORDER BY n DESC, kind NULLS LAST, reason, error_class NULLS LAST
      LIMIT $${params.length}`,
    ...params,
  );
  return {
    groups: rows.slice(0, MAX_GROUPS).map((row) => ({
      kind: row.kind,
      reason: row.reason,
      errorClass: row.error_class,
      count: Number(row.n),
      oldestFirstSeenAt: row.oldest.toISOString(),
      newestLastSeenAt: row.newest.toISOString(),
    })),
    truncated: rows.length > MAX_GROUPS,
  };
}
