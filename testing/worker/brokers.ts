import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { Transport } from "@review-console/consumer";
import {
  connectNats,
  ensureStream,
  NatsJetStreamTransport,
  natsReachable,
  natsUrl,
  publish as publishNats,
  type NatsJetStreamOptions,
} from "@review-console/consumer/nats";
import {
  connectRabbitMq,
  declareQueue,
  publish as publishRabbitMq,
  RabbitMqTransport,
  rabbitmqReachable,
  rabbitmqUrl,
  type RabbitMqOptions,
} from "@review-console/consumer/rabbitmq";
import {
  publish as publishRedis,
  RedisStreamsTransport,
  type RedisStreamsOptions,
} from "@review-console/consumer/redis";
import { connectRedis, redisReachable, redisUrl } from "./harness";
import type { TransportName } from "./transport-option";

// The per-broker plumbing of the scripts that run a worker against a real broker (the demo, the
// crash test, the consumer bench): whether the broker answers, declaring the stream or queue,
// publishing to it, looking at what is left in it, and the worker's Transport. The scripts keep
// what is theirs (names, limits, messages); the three brokers' differences live here only.

/** The consumer side of a worker, in the terms the three transports share. */
export interface WorkerOptions {
  /** Redis's consumer group, NATS's durable consumer: shared by every process of the worker. RabbitMQ has none. */
  group: string;
  /** This process's name: Redis's consumer in the group (reused after a restart to take up its own pending entries). */
  consumer: string;
  concurrency?: number;
  /** Messages per read (Redis) or pull (NATS); RabbitMQ pushes up to its prefetch. */
  batchSize?: number;
  /** Messages held in this process before reading pauses; RabbitMQ's prefetch. */
  maxInMemory?: number;
  /** What one broker alone has (claim and block times, heartbeats), as its transport takes it. */
  redis?: Partial<Omit<RedisStreamsOptions, "stream" | "group" | "consumer">>;
  rabbitmq?: Partial<Omit<RabbitMqOptions, "queue">>;
  nats?: Partial<Omit<NatsJetStreamOptions, "stream" | "durable">>;
}

/**
 * The worker's group, declared by the producer before it writes: for a script that inspects it
 * (`outstanding`, `drained`) before any worker has come up. Otherwise the transport declares it.
 */
export interface GroupSetup {
  name: string;
  /** NATS: AckWait, MaxDeliver and MaxAckPending of the durable consumer (the transport's defaults otherwise). */
  ackWaitMs?: number;
  maxDeliver?: number;
  maxAckPending?: number;
}

export interface OpenOptions {
  /** NATS: the subject under the stream (`<where>.<subject>`) that messages are published to. */
  subject: string;
  group?: GroupSetup;
}

/** A producer's connection to one stream or queue. */
export interface BrokerSession {
  /** Publishes one envelope (an object as JSON, text as it is); resolves with the id the worker sees as `source.transportId`. */
  publish(envelope: unknown): Promise<string>;
  /** Publishes in batches of 100, each confirmed by the broker before the next, `pauseMs` apart. */
  publishAll(envelopes: unknown[], options?: { pauseMs?: number }): Promise<void>;
  /**
   * Messages of the declared group still with the broker: not yet delivered, or delivered and not
   * acknowledged, as far as the broker tells. RabbitMQ does not count unacknowledged messages over
   * AMQP; they go back to the queue when their consumer stops, and are counted then.
   */
  outstanding(): Promise<number>;
  /** Everything delivered and acknowledged (RabbitMQ: nothing ready, see `outstanding`). */
  drained(): Promise<boolean>;
  /** Deletes the stream or queue. */
  remove(): Promise<void>;
  close(): Promise<void>;
}

export interface Broker {
  name: TransportName;
  /** The broker in messages: "Redis", "RabbitMQ", "NATS with JetStream". */
  title: string;
  /** The configured URL (from its environment variable, credentials included). */
  url(): string;
  /** The environment variable a worker process takes its URL from, and the port that URL defaults to. */
  urlVariable: string;
  defaultPort: number;
  /** How to start one on this machine: the command, the package it comes from, what it expects. */
  start: { command: string; package?: string; note?: string };
  /** True when the broker answers within a second; never retries. */
  reachable(): Promise<boolean>;
  /** `where` (and the group reading it) on this broker, for output: the URL without credentials. */
  describe(where: string, group: string): string;
  open(where: string, options: OpenOptions): Promise<BrokerSession>;
  transport(where: string, options: WorkerOptions): Transport;
}

const BATCH = 100;
const text = (envelope: unknown) => (typeof envelope === "string" ? envelope : JSON.stringify(envelope));
const withoutCredentials = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, "$1");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Batches of BATCH, each sent whole before the next: a broker confirms each message, and a
 * producer that sends everything at once would measure (or stress) its own queue, not the broker's.
 */
async function inBatches(
  envelopes: unknown[],
  pauseMs: number,
  send: (batch: unknown[]) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < envelopes.length; i += BATCH) {
    await send(envelopes.slice(i, i + BATCH));
    if (pauseMs > 0) await pause(pauseMs);
  }
}

function needsGroup(options: OpenOptions): GroupSetup {
  if (!options.group) throw new Error("declare the group when opening the broker to look at what is left");
  return options.group;
}

const redis: Broker = {
  name: "redis",
  title: "Redis",
  url: redisUrl,
  urlVariable: "REDIS_URL",
  defaultPort: 6379,
  start: { command: `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no` },
  reachable: () => redisReachable(),
  describe: (where, group) => `Redis stream ${where}, group ${group}, on ${withoutCredentials(redisUrl())}`,
  async open(where, options) {
    const client = await connectRedis();
    // From the first entry ("0"), so what is written before a worker comes up is read too.
    if (options.group) await client.xGroupCreate(where, options.group.name, "0", { MKSTREAM: true });
    const pending = async () => Number((await client.xPending(where, needsGroup(options).name)).pending);
    return {
      publish: (envelope) => publishRedis(client, where, envelope),
      // One MULTI per batch: one round trip instead of one per entry.
      publishAll: (envelopes, { pauseMs = 0 } = {}) =>
        inBatches(envelopes, pauseMs, (batch) => {
          const multi = client.multi();
          for (const envelope of batch) multi.xAdd(where, "*", { envelope: text(envelope) });
          return multi.exec();
        }),
      outstanding: pending,
      async drained() {
        // Pending counts only what was delivered: the group must also have read up to the last entry.
        const [groups, last] = await Promise.all([
          client.xInfoGroups(where),
          client.xRevRange(where, "+", "-", { COUNT: 1 }),
        ]);
        const name = needsGroup(options).name;
        const group = (groups as unknown as Record<string, unknown>[]).find((g) => String(g.name) === name);
        const delivered =
          group !== undefined && last?.[0] !== undefined && String(group["last-delivered-id"]) === String(last[0].id);
        return delivered && (await pending()) === 0;
      },
      remove: async () => void (await client.del(where)),
      close: async () => void (await client.quit()),
    };
  },
  transport: (where, o) =>
    new RedisStreamsTransport({
      stream: where,
      group: o.group,
      consumer: o.consumer,
      batchSize: o.batchSize,
      maxInMemory: o.maxInMemory,
      concurrency: o.concurrency,
      ...o.redis,
    }),
};

const rabbitmq: Broker = {
  name: "rabbitmq",
  title: "RabbitMQ",
  url: rabbitmqUrl,
  urlVariable: "RABBITMQ_URL",
  defaultPort: 5672,
  start: {
    command: "rabbitmq-server -detached",
    package: "Debian's rabbitmq-server",
    note: "guest/guest on 127.0.0.1:5672",
  },
  reachable: () => rabbitmqReachable(),
  describe: (where) => `RabbitMQ quorum queue ${where} on ${withoutCredentials(rabbitmqUrl())}`,
  async open(where) {
    const connection = await connectRabbitMq();
    // A confirm channel: each publish resolves once the broker has the message.
    const channel = await connection.createConfirmChannel();
    await declareQueue(channel, where);
    const ready = async () => (await channel.checkQueue(where)).messageCount;
    return {
      publish: (envelope) => publishRabbitMq(channel, where, envelope),
      publishAll: (envelopes, { pauseMs = 0 } = {}) =>
        inBatches(envelopes, pauseMs, (batch) => Promise.all(batch.map((e) => publishRabbitMq(channel, where, e)))),
      outstanding: ready,
      drained: async () => (await ready()) === 0,
      remove: async () => void (await channel.deleteQueue(where)),
      close: () => connection.close(),
    };
  },
  transport: (where, o) =>
    new RabbitMqTransport({
      queue: where,
      consumerName: o.consumer,
      prefetch: o.maxInMemory,
      concurrency: o.concurrency,
      ...o.rabbitmq,
    }),
};

const nats: Broker = {
  name: "nats",
  title: "NATS with JetStream",
  url: natsUrl,
  urlVariable: "NATS_URL",
  defaultPort: 4222,
  start: { command: "nats-server -js -a 127.0.0.1 -p 4222 &", package: "Debian's nats-server" },
  reachable: () => natsReachable(),
  describe: (where, group) => `NATS JetStream stream ${where} (durable ${group}) on ${withoutCredentials(natsUrl())}`,
  async open(where, options) {
    const nc = await connectNats();
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    // Before the first publish: a subject no stream takes is refused.
    await ensureStream(jsm, where);
    const group = options.group;
    if (group) {
      // The same configuration the transport would create, with the caller's timings.
      await jsm.consumers.add(where, {
        durable_name: group.name,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...(group.ackWaitMs !== undefined ? { ack_wait: nanos(group.ackWaitMs) } : {}),
        ...(group.maxDeliver !== undefined ? { max_deliver: group.maxDeliver } : {}),
        ...(group.maxAckPending !== undefined ? { max_ack_pending: group.maxAckPending } : {}),
      });
    }
    const subject = `${where}.${options.subject}`;
    const left = async () => {
      const info = await jsm.consumers.info(where, needsGroup(options).name);
      return info.num_pending + info.num_ack_pending;
    };
    return {
      publish: (envelope) => publishNats(js, subject, envelope),
      publishAll: (envelopes, { pauseMs = 0 } = {}) =>
        inBatches(envelopes, pauseMs, (batch) => Promise.all(batch.map((e) => publishNats(js, subject, e)))),
      outstanding: left,
      drained: async () => (await left()) === 0,
      remove: async () => void (await jsm.streams.delete(where)),
      close: () => nc.close(),
    };
  },
  transport: (where, o) =>
    new NatsJetStreamTransport({
      stream: where,
      durable: o.group,
      consumerName: o.consumer,
      batchSize: o.batchSize,
      maxInMemory: o.maxInMemory,
      concurrency: o.concurrency,
      ...o.nats,
    }),
};

const BROKERS: Record<TransportName, Broker> = { redis, rabbitmq, nats };

/** The broker behind a `--transport` name (testing/worker/transport-option.ts). */
export function brokerFor(name: TransportName): Broker {
  return BROKERS[name];
}
