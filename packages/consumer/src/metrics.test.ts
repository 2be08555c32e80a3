import { afterEach, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import type { ReviewDesk } from "./desk.ts";
import type { ConsumerLogger } from "./logger.ts";
import { guardedMetrics, noMetrics, type ConsumerMetrics, type HandledOutcome } from "./metrics-hook.ts";
import { prometheusMetrics, serveMetrics, type MetricsServer } from "./metrics.ts";
import { ConsumerRuntime } from "./runtime.ts";
import type { IncomingMessage } from "./types.ts";

/** The value of one sample line (`name{labels} value`) of a scrape, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("prometheusMetrics", () => {
  it("counts outcomes per transport, observes handler durations, and starts a tracked transport's outcomes at 0", async () => {
    const metrics = prometheusMetrics();
    metrics.trackPending("redis-streams", { held: () => 0 });
    metrics.messageHandled("redis-streams", "applied");
    metrics.messageHandled("redis-streams", "applied");
    metrics.messageHandled("redis-streams", "review");
    metrics.messageHandled("replay", "applied");
    metrics.handlerDuration("redis-streams", "ledger.entry", 0.02);
    metrics.handlerDuration("redis-streams", "ledger.entry", 3);

    const text = await metrics.registry.metrics();
    expect(sample(text, 'review_consumer_messages_total{transport="redis-streams",outcome="applied"}')).toBe(2);
    expect(sample(text, 'review_consumer_messages_total{transport="redis-streams",outcome="review"}')).toBe(1);
    expect(sample(text, 'review_consumer_messages_total{transport="redis-streams",outcome="unavailable"}')).toBe(0);
    expect(sample(text, 'review_consumer_messages_total{transport="replay",outcome="applied"}')).toBe(1);
    const histogram = 'review_consumer_handler_duration_seconds_count{transport="redis-streams",kind="ledger.entry"}';
    expect(sample(text, histogram)).toBe(2);
    expect(
      sample(
        text,
        'review_consumer_handler_duration_seconds_bucket{le="0.025",transport="redis-streams",kind="ledger.entry"}',
      ),
    ).toBe(1);
  });

  it("pending is what the transports hold plus their broker's backlog, summed per transport, gone once untracked", async () => {
    const metrics = prometheusMetrics();
    const stopA = metrics.trackPending("rabbitmq", { held: () => 2, backlog: async () => 5 });
    const stopB = metrics.trackPending("rabbitmq", { held: () => 1 });
    metrics.trackPending("nats-jetstream", { held: () => 3, backlog: async () => null });
    let text = await metrics.registry.metrics();
    expect(sample(text, 'review_consumer_pending{transport="rabbitmq"}')).toBe(8);
    expect(sample(text, 'review_consumer_pending{transport="nats-jetstream"}'), "unknown backlog: held only").toBe(3);
    stopA();
    stopB();
    text = await metrics.registry.metrics();
    expect(sample(text, 'review_consumer_pending{transport="rabbitmq"}')).toBeUndefined();
  });

  it("a backlog read that fails or hangs keeps the last value and does not hold the scrape up", async () => {
    const metrics = prometheusMetrics({ backlogTimeoutMs: 50 });
    let mode: "ok" | "fail" | "hang" = "ok";
    let reads = 0;
    metrics.trackPending("redis-streams", {
      held: () => 1,
      backlog: () => {
        reads++;
        if (mode === "fail") throw new Error("broker away");
        if (mode === "hang") return new Promise<number>(() => {});
        return Promise.resolve(10);
      },
    });
    const series = 'review_consumer_pending{transport="redis-streams"}';
    expect(sample(await metrics.registry.metrics(), series)).toBe(11);
    mode = "fail";
    expect(sample(await metrics.registry.metrics(), series)).toBe(11);
    mode = "hang";
    const started = Date.now();
    expect(sample(await metrics.registry.metrics(), series)).toBe(11);
    expect(sample(await metrics.registry.metrics(), series)).toBe(11);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(reads, "a hanging read is not started again while it hangs").toBe(3);
  });

  it("gives the same hook for the same registry (prom-client refuses a name twice)", () => {
    const registry = new Registry();
    expect(prometheusMetrics({ registry })).toBe(prometheusMetrics({ registry }));
    expect(registry.getSingleMetric("review_consumer_pending")).toBeDefined();
  });
});

describe("serveMetrics", () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("answers GET /metrics with the registry's text and content type, 404 elsewhere, 405 for other methods", async () => {
    const metrics = prometheusMetrics();
    metrics.messageHandled("rabbitmq", "retry");
    server = await serveMetrics({ port: 0, registry: metrics.registry });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);

    const res = await fetch(`${server.url}?debug=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(metrics.registry.contentType);
    expect(sample(await res.text(), 'review_consumer_messages_total{transport="rabbitmq",outcome="retry"}')).toBe(1);

    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics/x`)).status).toBe(404);
    const post = await fetch(server.url, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("closes, also with a kept-alive connection open", async () => {
    const metrics = prometheusMetrics();
    server = await serveMetrics({ port: 0, registry: metrics.registry });
    const { url } = server;
    await (await fetch(url)).text();
    await server.close();
    server = undefined;
    await expect(fetch(url)).rejects.toThrow();
  });

  it("a port in use is an error of serveMetrics", async () => {
    const metrics = prometheusMetrics();
    server = await serveMetrics({ port: 0, registry: metrics.registry });
    await expect(serveMetrics({ port: server.port, registry: metrics.registry })).rejects.toThrow(/EADDRINUSE/);
  });
});

// The runtime's side, without a broker or a database: a message that is not JSON is decided
// without the database and held through the desk.
const silentLogger: ConsumerLogger = { child: () => silentLogger, info() {}, warn() {}, error() {} };
const notJson: IncomingMessage = {
  body: { parsed: false, text: "not json", problem: "not JSON" },
  source: { transport: "fake-transport", transportId: "1" },
  deliveryCount: 1,
};

function desk(report: ReviewDesk["report"]): ReviewDesk {
  return { report, claimReplays: async () => [], reportOutcome: async () => "recorded" };
}

function runtime(metrics: ConsumerMetrics, report: ReviewDesk["report"] = async () => ({ id: "r1", attempts: 1 })) {
  return new ConsumerRuntime({
    name: "metrics-test",
    desk: desk(report),
    handlers: { "invoice.reminder": { effect: "external", execute: async () => ({ providerRef: "p" }) } },
    logger: silentLogger,
    metrics,
  });
}

describe("the runtime's metrics hook", () => {
  it("hears each answer under the message's transport, and unavailable when the runtime fails", async () => {
    const heard: [string, HandledOutcome][] = [];
    const metrics: ConsumerMetrics = { ...noMetrics, messageHandled: (t, o) => void heard.push([t, o]) };
    expect(await runtime(metrics).process(notJson)).toMatchObject({ type: "review", reason: "invalid-contract" });
    await expect(
      runtime(metrics, async () => Promise.reject(new Error("console away"))).process(notJson),
    ).rejects.toThrow("console away");
    expect(heard).toEqual([
      ["fake-transport", "review"],
      ["fake-transport", "unavailable"],
    ]);
  });

  it("a hook that throws does not fail the message, and is logged once per call", async () => {
    const warnings: string[] = [];
    const broken: ConsumerMetrics = {
      messageHandled() {
        throw new Error("metrics broke");
      },
      handlerDuration() {},
      trackPending: () => {
        throw new Error("metrics broke");
      },
    };
    const rt = runtime(broken);
    expect(await rt.process(notJson)).toMatchObject({ type: "review" });
    expect(await rt.process(notJson)).toMatchObject({ type: "review" });
    const logger = { ...silentLogger, warn: (_: object, message: string) => void warnings.push(message) };
    const guarded = guardedMetrics(broken, logger);
    guarded.messageHandled("t", "applied");
    guarded.messageHandled("t", "applied");
    expect(() => guarded.trackPending("t", { held: () => 0 })()).not.toThrow();
    expect(warnings).toEqual(["metrics hook failed; the message goes on", "metrics hook failed; the message goes on"]);
  });
});
