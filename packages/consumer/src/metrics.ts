// @review-console/consumer/metrics: the worker's Prometheus metrics (prom-client, an optional peer
// dependency, loaded only by this entry point) and a small server for its own `/metrics`.
import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ConsumerMetrics, HandledOutcome, PendingSource } from "./metrics-hook.ts";

export type { ConsumerMetrics, HandledOutcome, PendingSource } from "./metrics-hook.ts";

const OUTCOMES: readonly HandledOutcome[] = [
  "applied",
  "duplicate-suppressed",
  "wait",
  "retry",
  "review",
  "unavailable",
];

/** Local effects take milliseconds, provider calls up to `effectTimeoutMs` (20 s by default). */
export const HANDLER_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];

export interface PrometheusMetricsOptions {
  /** Where the metrics are registered (default a new Registry); the same registry gives the same hook back. */
  registry?: Registry;
  /** Buckets of `review_consumer_handler_duration_seconds`, in seconds. */
  buckets?: number[];
  /** How long a scrape waits for a broker's backlog before it uses the last one read (default 1000 ms). */
  backlogTimeoutMs?: number;
}

/** The hook for `createConsumer({ metrics })`, and the registry its metrics are in. */
export interface PrometheusConsumerMetrics extends ConsumerMetrics {
  readonly registry: Registry;
}

interface Tracked {
  transport: string;
  source: PendingSource;
  /** The last backlog the broker told; kept when a read fails or is slow. */
  lastBacklog: number;
  reading: Promise<void> | null;
}

// One hook per registry: prom-client refuses a metric name registered twice.
const installed = new WeakMap<Registry, PrometheusConsumerMetrics>();

/**
 * Registers the worker's metrics and returns the hook that feeds them:
 * `review_consumer_messages_total{transport,outcome}`,
 * `review_consumer_handler_duration_seconds{transport,kind}` and
 * `review_consumer_pending{transport}` (held unsettled here plus the broker's undelivered
 * backlog, read at each scrape).
 */
export function prometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusConsumerMetrics {
  const registry = options.registry ?? new Registry();
  const existing = installed.get(registry);
  if (existing) return existing;
  const backlogTimeoutMs = options.backlogTimeoutMs ?? 1000;
  const tracked = new Set<Tracked>();

  const messages = new Counter({
    name: "review_consumer_messages_total",
    help: "Messages the runtime answered, by transport (replay for replays) and outcome; unavailable: the runtime failed and the message comes back",
    labelNames: ["transport", "outcome"],
    registers: [registry],
  });
  const durations = new Histogram({
    name: "review_consumer_handler_duration_seconds",
    help: "Time in a handler's apply (local effect) or execute (provider call), by transport and kind",
    labelNames: ["transport", "kind"],
    buckets: options.buckets ?? HANDLER_DURATION_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: "review_consumer_pending",
    help: "Messages the transport has taken and not settled, plus the broker's backlog not yet delivered to the worker",
    labelNames: ["transport"],
    registers: [registry],
    async collect() {
      const all = [...tracked];
      const backlogs = await Promise.all(all.map((t) => readBacklog(t, backlogTimeoutMs)));
      const totals = new Map<string, number>();
      all.forEach((t, i) => {
        totals.set(t.transport, (totals.get(t.transport) ?? 0) + heldBy(t.source) + backlogs[i]!);
      });
      this.reset();
      for (const [transport, total] of totals) this.set({ transport }, total);
    },
  });

  const hook: PrometheusConsumerMetrics = {
    registry,
    messageHandled(transport, outcome) {
      messages.inc({ transport, outcome });
    },
    handlerDuration(transport, kind, seconds) {
      durations.observe({ transport, kind }, seconds);
    },
    trackPending(transport, source) {
      // Every outcome from the start, at 0: rate() and increase() need the series before the first one.
      for (const outcome of OUTCOMES) messages.inc({ transport, outcome }, 0);
      const entry: Tracked = { transport, source, lastBacklog: 0, reading: null };
      tracked.add(entry);
      return () => void tracked.delete(entry);
    },
  };
  installed.set(registry, hook);
  return hook;
}

function heldBy(source: PendingSource): number {
  try {
    return source.held();
  } catch {
    return 0;
  }
}

/**
 * The broker's backlog for one scrape: one read at a time per transport, and a scrape waits for
 * it at most `timeoutMs`; a failed, slow or unknown (null) read leaves the last value read.
 */
async function readBacklog(t: Tracked, timeoutMs: number): Promise<number> {
  const read = t.source.backlog?.bind(t.source);
  if (!read) return 0;
  t.reading ??= Promise.resolve()
    .then(read)
    .then(
      (value) => {
        if (typeof value === "number" && Number.isFinite(value)) t.lastBacklog = value;
      },
      () => {},
    )
    .finally(() => {
      t.reading = null;
    });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([t.reading, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  return t.lastBacklog;
}

export interface ServeMetricsOptions {
  /** 0 picks a free port (`port` of the answer says which). */
  port: number;
  /** Default 127.0.0.1; "0.0.0.0" or "::" for a scraper on another host. */
  host?: string;
  registry: Registry;
}

export interface MetricsServer {
  readonly server: Server;
  /** The port it listens on. */
  readonly port: number;
  /** `http://host:port/metrics`. */
  readonly url: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/** An HTTP server answering `GET /metrics` with the registry's text; 404 elsewhere. */
export async function serveMetrics(options: ServeMetricsOptions): Promise<MetricsServer> {
  const { registry, port, host = "127.0.0.1" } = options;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== "/metrics") {
      res
        .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
        .end("not found: the metrics are at /metrics\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("use GET\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(`collecting the metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    server,
    port: bound,
    url: `http://${urlHost}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
