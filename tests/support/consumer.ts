import { afterAll, beforeAll } from "vitest";
import { FakeEmailProvider } from "@/lib/consumer/demo/fake-email-provider";
import { closeConsumerPool } from "@/lib/consumer/store";
import { connectRedis, deleteStreams, redisReachable, type RunningWorker } from "@/lib/consumer/testing/harness";
import type { RedisClient } from "@/lib/consumer/transports/redis-streams";
import { setupTestDatabase, type TestDatabase, withClient } from "./database";

export interface ConsumerTestContext {
  /** False when Redis does not answer: the file's suites skip (`describe.skipIf(!redisUp)`). */
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
  if (!redisUp) console.warn(`${file}: SKIPPED, Redis is not reachable at REDIS_URL or 127.0.0.1:6379`);
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
