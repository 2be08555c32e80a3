/**
 * The worker's own /metrics (`@review-console/consumer/metrics`), on the real brokers and
 * PostgreSQL: after a worker handled messages with every kind of outcome, the scrape served by
 * serveMetrics counts them per outcome, has a handler duration histogram, and a pending gauge that
 * adds the broker's undelivered backlog to what the transport holds; promtool accepts it.
 * Redis, RabbitMQ and NATS JetStream each; a missing broker fails its part on CI.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChannelModel, ConfirmChannel } from "amqplib";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Outcome } from "@review-console/consumer";
import { publish as publishRedis } from "@review-console/consumer/redis";
import {
  connectRabbitMq,
  declareQueue,
  publish as publishRabbitMq,
  RabbitMqTransport,
  rabbitmqReachable,
  rabbitmqUrl,
} from "@review-console/consumer/rabbitmq";
import {
  connectNats,
  ensureStream,
  NatsJetStreamTransport,
  natsReachable,
  natsUrl,
  publish as publishNats,
} from "@review-console/consumer/nats";
import { prometheusMetrics, serveMetrics, type MetricsServer } from "@review-console/consumer/metrics";
import type { InProcessConsumerOptions } from "@/testing/worker/in-process";
import { eventually, startWorker, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import { missingBroker, setupConsumerTest, startTransportWorker } from "../support/consumer";
import { CREATE_LEDGER, gatedLedger, ledgerRegistry as registry } from "../support/ledger";
import { promtool, promtoolAvailable } from "../support/promtool";

const consumerTest = await setupConsumerTest("consumer-metrics");
const { redisUp, sql, workers } = consumerTest;
const rabbitUp = await rabbitmqReachable();
if (!rabbitUp) {
  missingBroker("consumer-metrics", {
    label: "RabbitMQ",
    url: rabbitmqUrl(),
    start: "start one (Debian: `apt-get install rabbitmq-server`, then `rabbitmq-server -detached`)",
  });
}
const natsUp = await natsReachable();
if (!natsUp) {
  missingBroker("consumer-metrics", {
    label: "NATS with JetStream",
    url: natsUrl(),
    start: "start one (Debian: `apt-get install nats-server`, then `nats-server -js -a 127.0.0.1 -p 4222 &`)",
  });
}
const hasPromtool = promtoolAvailable("consumer-metrics");

function entry(key: string, sequence: number, account: string, id = `msg-${key}-${sequence}`) {
  return {
    id,
    kind: "ledger.entry",
    effectKey: `${key}:entry-${sequence}`,
    sequenceKey: key,
    sequence,
    payload: { schema: "1", account, amount: sequence },
  };
}

/** One broker as this file uses it: a worker that takes one message at a time into memory. */
interface Broker {
  label: string;
  transport: string;
  up: boolean;
  start(
    options: InProcessConsumerOptions,
  ): Promise<{ worker: RunningWorker; send(envelope: unknown): Promise<string> }>;
}

let rabbit: { connection: ChannelModel; channel: ConfirmChannel } | undefined;
let nats: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager } | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
const servers: MetricsServer[] = [];
/** Gates a failed test left closed: a worker stops only once its running handler returns. */
const gates: (() => void)[] = [];

beforeAll(async () => {
  if (!redisUp) return;
  await sql(CREATE_LEDGER);
  if (rabbitUp) {
    const connection = await connectRabbitMq();
    rabbit = { connection, channel: await connection.createConfirmChannel() };
  }
  if (natsUp) {
    const nc = await connectNats();
    nats = { nc, js: jetstream(nc), jsm: await jetstreamManager(nc) };
  }
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const open of gates.splice(0)) open();
  // The workers go before the queues and streams they read.
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  await rabbit?.connection.close().catch(() => {});
  await nats?.nc.close().catch(() => {});
});

const brokers: Broker[] = [
  {
    label: "Redis Streams",
    transport: "redis-streams",
    up: redisUp,
    async start(options) {
      const stream = uniqueName("rc-test-metrics");
      const worker = startWorker(options, {
        stream,
        group: "workers",
        consumer: "w1",
        claimIdleMs: 5000,
        maxInMemory: 1,
        batchSize: 1,
      });
      return { worker, send: (envelope) => publishRedis(consumerTest.redis, stream, envelope) };
    },
  },
  {
    label: "RabbitMQ",
    transport: "rabbitmq",
    up: redisUp && rabbitUp,
    async start(options) {
      const { channel } = rabbit!;
      const queue = uniqueName("rc-test-metrics");
      await declareQueue(channel, queue);
      cleanups.push(() => channel.deleteQueue(queue));
      const worker = startTransportWorker(options, new RabbitMqTransport({ queue, prefetch: 1, concurrency: 1 }));
      return { worker, send: (envelope) => publishRabbitMq(channel, queue, envelope) };
    },
  },
  {
    label: "NATS JetStream",
    transport: "nats-jetstream",
    up: redisUp && natsUp,
    async start(options) {
      const { js, jsm } = nats!;
      const stream = `rc-test-metrics-${randomBytes(5).toString("hex")}`;
      await ensureStream(jsm, stream);
      cleanups.push(() => jsm.streams.delete(stream));
      const worker = startTransportWorker(
        options,
        new NatsJetStreamTransport({ stream, durable: "workers", maxInMemory: 1, batchSize: 1, concurrency: 1 }),
      );
      return { worker, send: (envelope) => publishNats(js, `${stream}.in`, envelope) };
    },
  },
];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text-format scrape (label values here hold no quotes or commas). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/gi)].map((m) => [m[1]!, m[2]!] as const),
    );
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

async function scrape(server: MetricsServer): Promise<{ text: string; samples: Sample[]; contentType: string | null }> {
  const res = await fetch(server.url);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, samples: parse(text), contentType: res.headers.get("content-type") };
}

const isFinal = (o: Outcome) => o.type !== "wait" && o.type !== "retry";

describe.each(brokers)("the worker's /metrics on $label", (broker) => {
  it.skipIf(!broker.up)(
    "counts each outcome, times the handlers, gauges pending with the broker's backlog, and passes promtool",
    async () => {
      const ledger = gatedLedger();
      gates.push(ledger.open);
      const metrics = prometheusMetrics();
      const server = await serveMetrics({ port: 0, registry: metrics.registry });
      servers.push(server);
      const { worker, send } = await broker.start({
        name: uniqueName("metrics-worker"),
        registry,
        handlers: { "ledger.entry": ledger.handler },
        effectLeaseMs: 2000,
        gapGraceMs: 300,
        replays: false,
        metrics,
      });
      workers.push(worker);
      const key = (name: string) => uniqueName(name);
      const [a, b, c, d] = [key("a"), key("b"), key("c"), key("d")];

      const ids: string[] = [];
      for (const envelope of [
        entry(a, 1, "acct"),
        entry(a, 2, "acct"),
        entry(a, 3, "acct"),
        entry(a, 2, "acct", `msg-${a}-2-again`), // duplicate-suppressed
        "not json", // review: invalid-contract
        entry(b, 1, "flaky"), // retry, then applied
        entry(c, 1, "broken"), // review: handler-error
        entry(d, 1, "slow"),
      ]) {
        ids.push(await send(envelope));
      }
      for (const id of ids) {
        await eventually(
          () => worker.outcomes.some((o) => o.message.source.transportId === id && isFinal(o.outcome)),
          20_000,
          `the outcome of ${id}`,
        );
      }

      const { samples, text, contentType } = await scrape(server);
      expect(contentType).toBe(metrics.registry.contentType);
      const transport = broker.transport;
      const counted = (outcome: string) => valueOf(samples, "review_consumer_messages_total", { transport, outcome });
      const seen = (type: string) => worker.outcomes.filter((o) => o.outcome.type === type).length;
      expect(counted("applied")).toBe(5);
      expect(counted("duplicate-suppressed")).toBe(1);
      expect(counted("retry")).toBe(1);
      expect(counted("review")).toBe(2);
      expect(counted("unavailable")).toBe(0);
      expect(counted("wait"), "every wait the worker saw").toBe(seen("wait"));

      // Handler calls: a1..a3, b1 twice (the retry), c1, d1; the duplicate and the text run none.
      const kind = { transport, kind: "ledger.entry" };
      expect(valueOf(samples, "review_consumer_handler_duration_seconds_count", kind)).toBe(7);
      // The slow entry waits 150 ms in a timer; the histogram's clock can see a hair less (CI saw
      // 0.1498), so the bound allows a millisecond or two.
      expect(valueOf(samples, "review_consumer_handler_duration_seconds_sum", kind)).toBeGreaterThanOrEqual(0.145);
      expect(
        valueOf(samples, "review_consumer_handler_duration_seconds_bucket", { ...kind, le: "0.1" }),
        "the slow entry is above 100 ms",
      ).toBeLessThanOrEqual(6);
      expect(valueOf(samples, "review_consumer_handler_duration_seconds_bucket", { ...kind, le: "+Inf" })).toBe(7);
      expect(valueOf(samples, "review_consumer_pending", { transport })).toBe(0);

      if (hasPromtool) {
        const check = await promtool(["check", "metrics"], text);
        expect(check, text).toMatchObject({ code: 0 });
      }

      // One message held in its handler, three behind it at the broker: the worker takes one at a
      // time, so without the broker's backlog the gauge would say 1.
      const held = await send(entry(key("e"), 1, "gated"));
      await ledger.reached;
      const behind: string[] = [];
      for (const account of ["x", "y", "z"]) behind.push(await send(entry(key(account), 1, account)));
      await eventually(
        async () =>
          valueOf((await scrape(server)).samples, "review_consumer_pending", { transport }) === 4 ? true : undefined,
        10_000,
        "pending 4: one held, three at the broker",
      );
      ledger.open();
      for (const id of [held, ...behind]) {
        await eventually(
          () => worker.outcomes.some((o) => o.message.source.transportId === id && o.outcome.type === "applied"),
          20_000,
          `the outcome of ${id}`,
        );
      }
      await eventually(
        async () =>
          valueOf((await scrape(server)).samples, "review_consumer_pending", { transport }) === 0 ? true : undefined,
        10_000,
        "pending back to 0",
      );
      expect(
        valueOf((await scrape(server)).samples, "review_consumer_messages_total", { transport, outcome: "applied" }),
      ).toBe(9);

      await worker.stop();
      expect(
        valueOf((await scrape(server)).samples, "review_consumer_pending", { transport }),
        "a stopped transport reports no pending",
      ).toBeUndefined();
    },
    60_000,
  );
});
