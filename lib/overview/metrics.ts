import { Gauge, Registry } from "prom-client";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { AUTO_PAUSE_REASON_PREFIX } from "@/lib/operations";
import { processMetrics } from "@/lib/metrics/process";

/*
 * GET /api/metrics (docs/decisions/0016-metrics.md): this process's counters and histogram, plus
 * gauges of the shared state read from the database at scrape time, so every console process
 * reports the same state. The gauges read counts kept by triggers (migration
 * 20261201030000_metric_counts), a few small rows whatever the size of the queue or the log,
 * and two index-served lookups: one query, one round trip.
 */

/**
 * Delta rows the triggers leave before they fold them (about 1,000 per table). Far more means
 * compactions were skipped (the lock was busy each time one was due): the scrape asks for one.
 */
const COMPACT_ABOVE_ROWS = 10_000;

interface GaugeRow {
  metric: "open" | "oldest" | "replays" | "operations" | "auto-paused" | "pending" | "delta-rows";
  a: string | null;
  b: string | null;
  value: number;
}

/** Every gauge in one statement. A state with nothing in it is 0, so its series stays present. */
function readGauges(): Promise<GaugeRow[]> {
  return db().$queryRaw<GaugeRow[]>`
    -- Awaiting an outcome.
    SELECT 'open' AS metric, category::text AS a, reason AS b, sum(n)::float8 AS value
      FROM review_record_counts WHERE status IN ('open', 'replay-scheduled', 'replaying')
     GROUP BY category, reason HAVING sum(n) <> 0
    UNION ALL
    -- Served by review_records_open_first_seen_at (partial, open records only): one index probe.
    SELECT 'oldest', NULL, NULL,
           COALESCE(extract(epoch FROM now() - (SELECT min(first_seen_at) FROM review_records WHERE status = 'open')), 0)::float8
    UNION ALL
    SELECT 'replays', s::text, NULL, COALESCE(sum(c.n), 0)::float8
      FROM unnest(enum_range(NULL::"ReplayState")) AS s LEFT JOIN replay_counts c ON c.state = s GROUP BY s
    UNION ALL
    SELECT 'operations', s::text, NULL, count(o.id)::float8
      FROM unnest(enum_range(NULL::"OperationState")) AS s LEFT JOIN bulk_operations o ON o.state = s GROUP BY s
    UNION ALL
    SELECT 'auto-paused', NULL, NULL, count(*)::float8
      FROM bulk_operations WHERE state = 'paused' AND starts_with(pause_reason, ${AUTO_PAUSE_REASON_PREFIX})
    UNION ALL
    -- Operations that still dispatch or may again.
    SELECT 'pending', s::text, NULL, COALESCE(sum(c.n), 0)::float8
      FROM unnest(ARRAY['running', 'awaiting-continue', 'paused']::"OperationState"[]) AS s
      LEFT JOIN bulk_operations o ON o.state = s
      LEFT JOIN operation_pending_counts c ON c.operation_id = o.id
     GROUP BY s
    UNION ALL
    SELECT 'delta-rows', NULL, NULL,
           ((SELECT count(*) FROM review_record_counts) + (SELECT count(*) FROM replay_counts)
            + (SELECT count(*) FROM operation_pending_counts))::float8`;
}

function gauge(registry: Registry, name: string, help: string, labelNames: string[] = []): Gauge<string> {
  return new Gauge({ name, help, labelNames, registers: [registry] });
}

/** A registry of this scrape's gauges, read from the database now. */
export async function readStateGauges(): Promise<Registry> {
  const rows = await readGauges();
  const registry = new Registry();
  const open = gauge(
    registry,
    "review_console_open_records",
    "Review records awaiting an outcome (open, replay-scheduled, replaying) by category and reason",
    ["category", "reason"],
  );
  const oldest = gauge(
    registry,
    "review_console_oldest_open_age_seconds",
    "Age of the oldest open review record, 0 when none",
  );
  const replays = gauge(
    registry,
    "review_console_replays",
    "Replays by state (scheduled, claimed, applied, duplicate-suppressed, routed, failed, cancelled)",
    ["state"],
  );
  const operations = gauge(
    registry,
    "review_console_operations",
    "Bulk operations by state (planned, running, awaiting-continue, paused, completed, aborted)",
    ["state"],
  );
  const autoPaused = gauge(
    registry,
    "review_console_operations_auto_paused",
    "Bulk operations paused right now by auto-pause (too many replays held again), not by a person",
  );
  const pending = gauge(
    registry,
    "review_console_operation_records_pending",
    "Records of live bulk operations not dispatched yet, by operation state (paused ones are stalled)",
    ["state"],
  );
  for (const row of rows) {
    switch (row.metric) {
      case "open":
        open.set({ category: row.a!, reason: row.b! }, row.value);
        break;
      case "oldest":
        oldest.set(row.value);
        break;
      case "replays":
        replays.set({ state: row.a! }, row.value);
        break;
      case "operations":
        operations.set({ state: row.a! }, row.value);
        break;
      case "auto-paused":
        autoPaused.set(row.value);
        break;
      case "pending":
        pending.set({ state: row.a! }, row.value);
        break;
      case "delta-rows":
        if (row.value > COMPACT_ABOVE_ROWS) compactInBackground(row.value);
        break;
    }
  }
  return registry;
}

/** Not awaited: this scrape has its figures; the fold only makes the next ones cheaper. */
function compactInBackground(rows: number): void {
  log.info({ rows }, "metrics: folding the counts' delta rows");
  db().$queryRaw`SELECT metric_counts_compact()`.catch((err: unknown) =>
    log.error({ err }, "metrics: folding the counts' delta rows failed"),
  );
}

/** The scrape: this process's counters and histogram, and the state gauges, as Prometheus text. */
export async function scrapeMetrics(): Promise<{ text: string; contentType: string }> {
  const merged = Registry.merge([processMetrics().registry, await readStateGauges()]);
  return { text: await merged.metrics(), contentType: merged.contentType };
}
