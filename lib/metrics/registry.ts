import { Gauge, Registry } from "prom-client";
import { db } from "@/lib/db/client";

// Read from the database at scrape time, not counted in this process: every console process
// (and a restart) then reports the same truth, and nothing drifts between instances.

interface CountRow {
  a: string;
  b: string | null;
  n: bigint;
}

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  new Gauge({
    name: "review_console_open_records",
    help: "Review records awaiting an outcome (open, replay-scheduled, replaying) by category and reason",
    labelNames: ["category", "reason"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRawUnsafe<CountRow[]>(
        `SELECT category::text AS a, reason AS b, count(*) AS n FROM review_records
          WHERE status IN ('open', 'replay-scheduled', 'replaying') GROUP BY 1, 2`,
      );
      for (const r of rows) this.set({ category: r.a, reason: r.b ?? "" }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_oldest_open_age_seconds",
    help: "Age of the oldest open review record, 0 when none",
    registers: [registry],
    async collect() {
      const [row] = await db().$queryRawUnsafe<{ age: number | null }[]>(
        `SELECT extract(epoch FROM now() - min(first_seen_at))::float8 AS age FROM review_records WHERE status = 'open'`,
      );
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
      const rows = await db().$queryRawUnsafe<CountRow[]>(
        `SELECT action AS a, NULL AS b, count(*) AS n FROM decision_log
          WHERE action LIKE 'review.%' OR action LIKE 'replay.%' GROUP BY 1`,
      );
      for (const r of rows) this.set({ action: r.a }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_replays",
    help: "Replays by state (scheduled, claimed, applied, duplicate-suppressed, routed, failed, cancelled)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRawUnsafe<CountRow[]>(
        `SELECT state::text AS a, NULL AS b, count(*) AS n FROM replays GROUP BY 1`,
      );
      for (const r of rows) this.set({ state: r.a }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_operations",
    help: "Bulk operations by state (planned, running, awaiting-continue, paused, completed, aborted)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRawUnsafe<CountRow[]>(
        `SELECT state::text AS a, NULL AS b, count(*) AS n FROM bulk_operations GROUP BY 1`,
      );
      for (const r of rows) this.set({ state: r.a }, Number(r.n));
    },
  });
  new Gauge({
    name: "review_console_operation_records_pending",
    help: "Records of live bulk operations not dispatched yet, by operation state (paused ones are stalled)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db().$queryRawUnsafe<CountRow[]>(
        `SELECT o.state::text AS a, NULL AS b, count(*) AS n
           FROM bulk_operations o JOIN bulk_operation_items i ON i.operation_id = o.id AND i.state = 'pending'
          WHERE o.state IN ('running', 'awaiting-continue', 'paused') GROUP BY 1`,
      );
      for (const r of rows) this.set({ state: r.a }, Number(r.n));
    },
  });
  return registry;
}
