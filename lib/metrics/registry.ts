import { Gauge, Registry } from "prom-client";
import { db } from "@/lib/db/client";

// Read from the database at scrape time, not counted in this process: every console process
// (and a restart) then reports the same truth, and nothing drifts between instances.

/** A count by one label (`state`, `action`). */
type CountRow<L extends string> = Record<L, string> & { n: bigint };

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  new Gauge({
    name: "review_console_open_records",
    help: "Review records awaiting an outcome (open, replay-scheduled, replaying) by category and reason",
    labelNames: ["category", "reason"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRaw<{ category: string; reason: string | null; n: bigint }[]>`
        SELECT category::text AS category, reason, count(*) AS n FROM review_records
         WHERE status IN ('open', 'replay-scheduled', 'replaying') GROUP BY 1, 2`;
      for (const r of rows) this.set({ category: r.category, reason: r.reason ?? "" }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_oldest_open_age_seconds",
    help: "Age of the oldest open review record, 0 when none",
    registers: [registry],
    async collect() {
      const [row] = await db().$queryRaw<{ age: number | null }[]>`
        SELECT extract(epoch FROM now() - min(first_seen_at))::float8 AS age FROM review_records WHERE status = 'open'`;
      this.set(row?.age ?? 0);
    },
  });
  new Gauge({
    name: "review_console_actions_total",
    help: "Decisions taken on review records, by action (from the decision log)",
    labelNames: ["action"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRaw<CountRow<"action">[]>`
        SELECT action, count(*) AS n FROM decision_log
         WHERE action LIKE 'review.%' OR action LIKE 'replay.%' GROUP BY 1`;
      for (const r of rows) this.set({ action: r.action }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_replays",
    help: "Replays by state (scheduled, claimed, applied, duplicate-suppressed, routed, failed, cancelled)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRaw<CountRow<"state">[]>`
        SELECT state::text AS state, count(*) AS n FROM replays GROUP BY 1`;
      for (const r of rows) this.set({ state: r.state }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_operations",
    help: "Bulk operations by state (planned, running, awaiting-continue, paused, completed, aborted)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRaw<CountRow<"state">[]>`
        SELECT state::text AS state, count(*) AS n FROM bulk_operations GROUP BY 1`;
      for (const r of rows) this.set({ state: r.state }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_operation_records_pending",
    help: "Records of live bulk operations not dispatched yet, by operation state (paused ones are stalled)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRaw<CountRow<"state">[]>`
        SELECT o.state::text AS state, count(*) AS n
          FROM bulk_operations o JOIN bulk_operation_items i ON i.operation_id = o.id AND i.state = 'pending'
         WHERE o.state IN ('running', 'awaiting-continue', 'paused') GROUP BY 1`;
      for (const r of rows) this.set({ state: r.state }, Number(r.n));
    },
  });
  return registry;
}
