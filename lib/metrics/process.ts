import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

/*
 * What this process counts and times itself: decisions it appended, and how long its answers took.
 * Per process, as Prometheus expects of counters and histograms: each console process exposes
 * its own since it started, Prometheus keeps one series per instance, and rate() and sum() across
 * instances give the totals (a restart's reset to zero is what rate() is built to handle).
 * Kept on globalThis: Next may load this module twice, and two registries would split the counts.
 */

export interface ProcessMetrics {
  registry: Registry;
  decisions: Counter<"action">;
  httpDuration: Histogram<"route" | "method" | "status">;
  /** Intake requests the console's own server answered without Next (lib/server/intake-fast-path.ts). */
  fastPath: Counter<"route">;
  /** Webhook delivery attempts this process made, by outcome (lib/notifications/deliver.ts). */
  webhookDeliveries: Counter<"outcome">;
}

/** Seconds. From 5 ms (a cached read) to 30 s (a batch intake, a large dry run). */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const PREFIX = "review_console_";

/**
 * prom-client's default metrics that are gauges named `_total`, which `promtool check metrics`
 * rejects (only counters may end in `_total`); the rest of the defaults are kept.
 */
const REJECTED_DEFAULTS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

const globalForMetrics = globalThis as unknown as { reviewConsoleMetrics?: ProcessMetrics };

function create(): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  for (const name of REJECTED_DEFAULTS) registry.removeSingleMetric(PREFIX + name);
  const decisions = new Counter({
    name: "review_console_decisions_total",
    help: "Decisions appended to the decision log by this process since it started, by action (counted after commit)",
    labelNames: ["action"],
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "review_console_http_request_duration_seconds",
    help: "Time to answer an API request, by route pattern (such as /api/v1/reviews/[id]), method and status",
    labelNames: ["route", "method", "status"],
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
  const fastPath = new Counter({
    name: "review_console_http_fast_path_requests_total",
    help: "Intake requests (POST /api/v1/reviews, /api/v1/reviews/batch) answered by the console's own server without Next's request pipeline, by route",
    labelNames: ["route"],
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: "review_console_webhook_deliveries_total",
    help: "Webhook delivery attempts made by this process, by outcome: delivered, retrying (failed, tried again later) or failed (out of attempts)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  return { registry, decisions, httpDuration, fastPath, webhookDeliveries };
}

export function processMetrics(): ProcessMetrics {
  return (globalForMetrics.reviewConsoleMetrics ??= create());
}
