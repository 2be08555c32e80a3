import { afterAll, beforeAll } from "vitest";
import { createInProcessConsumer, type InProcessConsumerOptions } from "@/testing/worker/in-process";
import { FakeEmailProvider } from "@/testing/worker/demo/fake-email-provider";
import { closeConsumerPool, type Transport } from "@review-console/consumer";
import { connectRedis, deleteStreams, redisReachable, type RunningWorker } from "@/testing/worker/harness";
import type { RedisClient } from "@review-console/consumer/redis";
import { setupTestDatabase, type TestDatabase, withClient } from "./database";

export interface ConsumerTestContext {
  /** False when Redis does not answer on a person's machine: the file's suites skip (`describe.skipIf(!redisUp)`); on CI the file fails. */
  redisUp: boolean;
  database: { current: TestDatabase };
  sql: <T = any>(text: string, params?: unknown[]) => Promise<T[]>;
  provider: FakeEmailProvider;
  /** Workers a test starts; all are stopped after the file. */
  workers: RunningWorker[];
  /** Connected before the file's tests run. */
  readonly redis: RedisClient;
}

/**
 * What every consumer test file needs: its own database, a Redis connection, a fake email
 * provider, and a list of workers stopped afterwards (with the file's streams deleted).
 * Call at the top level of the file, before its own hooks.
 */
export async function setupConsumerTest(file: string): Promise<ConsumerTestContext> {
  const redisUp = await redisReachable();
  if (!redisUp) {
    missingBroker(file, {
      label: "Redis",
      url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      start: "start one with `redis-server --daemonize yes --bind 127.0.0.1` (Debian: apt-get install redis-server)",
    });
  }
  const database = setupTestDatabase();
  const provider = new FakeEmailProvider();
  const workers: RunningWorker[] = [];
  let redis: RedisClient | undefined;

  beforeAll(async () => {
    if (!redisUp) return;
    redis = await connectRedis();
    await provider.start();
  });

  afterAll(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await closeConsumerPool();
    await provider.stop();
    if (redis) await deleteStreams(redis);
    await redis?.quit();
  });

  return {
    redisUp,
    database,
    sql: (text, params = []) => withClient(database.current.url, async (c) => (await c.query(text, params)).rows),
    provider,
    workers,
    get redis() {
      if (!redis) throw new Error("Redis is not connected (used outside the file's tests, or Redis is down)");
      return redis;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// RabbitMQ and NATS JetStream (tests/integration/consumer-rabbitmq*.int.test.ts, consumer-nats*).

/** A broker a test file needs, and what to tell someone whose machine has none running. */
export interface BrokerUnderTest {
  label: string;
  url: string;
  /** How to start one, e.g. from Debian's package. */
  start: string;
  reachable: () => Promise<boolean>;
}

export interface BrokerTestContext {
  /** False when the broker does not answer (on a person's machine): the file's suites skip. */
  up: boolean;
  database: { current: TestDatabase };
  sql: <T = any>(text: string, params?: unknown[]) => Promise<T[]>;
  provider: FakeEmailProvider;
  /** Workers a test starts; all are stopped after the file. */
  workers: RunningWorker[];
  /** Run after the workers are stopped, last added first (queues and streams a test made). */
  cleanups: (() => Promise<unknown>)[];
}

/**
 * A broker a test file needs does not answer. On CI (`CI` set) that fails the file, naming the
 * broker and how to start it: CI must not pass by skipping. On a person's machine, which may run
 * none of them, the file's suites are skipped and it says so.
 */
export function missingBroker(file: string, broker: Pick<BrokerUnderTest, "label" | "url" | "start">): void {
  const problem = `${file}: ${broker.label} is not reachable at ${broker.url}: ${broker.start}`;
  if (process.env.CI) throw new Error(`${problem} (on CI these tests fail rather than skip)`);
  console.warn(`${problem}; SKIPPED (on CI this fails)`);
}

/**
 * What a broker's consumer test file needs: its own database, a fake email provider, workers
 * stopped afterwards. A broker that does not answer fails every test of the file, naming the
 * broker and how to start it: CI must not pass by skipping them.
 */
export async function setupBrokerTest(file: string, broker: BrokerUnderTest): Promise<BrokerTestContext> {
  const up = await broker.reachable();
  if (!up) missingBroker(file, broker);
  const database = setupTestDatabase();
  const provider = new FakeEmailProvider();
  const workers: RunningWorker[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    if (up) await provider.start();
  });

  afterAll(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    // Last in, first out: what a test made goes before the connection it was made on.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
    await closeConsumerPool();
    await provider.stop();
  });

  return {
    up,
    database,
    sql: (text, params = []) => withClient(database.current.url, async (c) => (await c.query(text, params)).rows),
    provider,
    workers,
    cleanups,
  };
}

/** Starts a consumer on any transport in the background. */
export function startTransportWorker(options: InProcessConsumerOptions, transport: Transport): RunningWorker {
  const outcomes: RunningWorker["outcomes"] = [];
  const consumer = createInProcessConsumer({
    ...options,
    onOutcome: (outcome, message) => {
      outcomes.push({ outcome, message });
      options.onOutcome?.(outcome, message);
    },
  });
  const controller = new AbortController();
  const running = consumer.run({ transport, signal: controller.signal });
  return {
    consumer,
    outcomes,
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** A logger that keeps what a transport says, for tests that look at its reconnections. */
export function recordingLogger() {
  const lines: { level: "info" | "warn" | "error"; message: string; details: object }[] = [];
  const at = (level: "info" | "warn" | "error") => (details: object, message: string) => {
    lines.push({ level, message, details });
  };
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}
