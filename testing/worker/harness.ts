import { randomBytes } from "node:crypto";
import type { Consumer, IncomingMessage, Outcome } from "@review-console/consumer";
import { createInProcessConsumer, type InProcessConsumerOptions } from "./in-process";
import {
  createRedisClient,
  DEFAULT_REDIS_URL,
  RedisStreamsTransport,
  type RedisClient,
  type RedisStreamsOptions,
} from "@review-console/consumer/redis";

// Shared by the consumer's integration tests (tests/integration/consumer-*.int.test.ts) and the
// crash test: a Redis check, unique names, a worker that runs in the background, and waiting.

export const redisUrl = () => process.env.REDIS_URL ?? DEFAULT_REDIS_URL;

/** True when Redis answers PING within a second; never retries. */
export async function redisReachable(url = redisUrl()): Promise<boolean> {
  const client = createRedisClient(url);
  client.on("error", () => {});
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 1000)),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

export async function connectRedis(url = redisUrl()): Promise<RedisClient> {
  const client = createRedisClient(url);
  client.on("error", () => {});
  await client.connect();
  return client;
}

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(5).toString("hex")}`;

/** The streams the workers of this process read, so a test file can remove them when done. */
const streams = new Set<string>();

export async function deleteStreams(client: RedisClient): Promise<void> {
  if (streams.size > 0) await client.del([...streams]);
  streams.clear();
}

export interface RunningWorker {
  consumer: Consumer;
  outcomes: { outcome: Outcome; message: IncomingMessage }[];
  /** Aborts and waits until the worker has finished the messages in hand. */
  stop(): Promise<void>;
}

/** Starts a consumer on a Redis stream in the background. */
export function startWorker(
  options: InProcessConsumerOptions,
  transport: Omit<RedisStreamsOptions, "url">,
): RunningWorker {
  const outcomes: RunningWorker["outcomes"] = [];
  const consumer = createInProcessConsumer({
    ...options,
    onOutcome: (outcome, message) => {
      outcomes.push({ outcome, message });
      options.onOutcome?.(outcome, message);
    },
  });
  const controller = new AbortController();
  streams.add(transport.stream);
  const running = consumer.run({
    transport: new RedisStreamsTransport({ url: redisUrl(), blockMs: 100, ...transport }),
    signal: controller.signal,
  });
  return {
    consumer,
    outcomes,
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** Polls `probe` until it returns something other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** An `invoice.reminder` envelope; `n` is the sequence, keys derive from `invoice`. */
export function reminder(invoice: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    id: `msg-${invoice}-${n}`,
    kind: "invoice.reminder",
    effectKey: `${invoice}:reminder-${n}`,
    sequenceKey: invoice,
    sequence: n,
    payload: { schema: "2021-03", invoiceId: invoice },
    ...extra,
  };
}
