import type pg from "pg";

/**
 * The decision log's month partitions (migration 20261201050000_decision_log_partitions):
 * decision_log_YYYY_MM for each UTC month, decision_log_default for a row whose month has none.
 */

/** How many months after the current one get a partition ahead of time. */
export const MONTHS_AHEAD = 3;

export interface MonthPartition {
  /** YYYY-MM */
  month: string;
  table: string;
}

/** "2026-09" -> "2026-09-01T00:00:00Z". */
export const monthStart = (month: string) => `${month}-01T00:00:00Z`;

/**
 * Makes the partitions of the current month and MONTHS_AHEAD more, where missing. Needs the
 * tables' owner. Returns the names made. `review-console migrate` and `archive` call it; a month
 * nobody made a partition for still takes appends, in decision_log_default.
 */
export async function ensureLogPartitions(client: pg.Client, monthsAhead = MONTHS_AHEAD): Promise<string[]> {
  const { rows } = await client.query<{ made: string }>(`SELECT decision_log_ensure_partitions($1) AS made`, [
    monthsAhead,
  ]);
  return rows.map((r) => r.made);
}

/** The month partitions that exist, oldest first (not the default partition). */
export async function listMonthPartitions(client: pg.Client): Promise<MonthPartition[]> {
  const { rows } = await client.query<{ table: string }>(
    `SELECT c.relname::text AS table FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'public.decision_log'::regclass AND c.relname ~ '^decision_log_[0-9]{4}_[0-9]{2}$'
      ORDER BY c.relname`,
  );
  return rows.map((r) => ({ table: r.table, month: r.table.slice("decision_log_".length).replace("_", "-") }));
}
