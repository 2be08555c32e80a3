import "dotenv/config";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { createKindRegistry } from "@review-console/contract";
import {
  type ConsumerRuntime,
  closeConsumerPool,
  consumerPool,
  type Handler,
  type IncomingMessage,
  type Transport,
} from "@review-console/consumer";
import { createInProcessConsumer, inProcessRuntime } from "@/testing/worker/in-process";
import { brokerFor } from "@/testing/worker/brokers";
import { type TransportName, transportOption } from "@/testing/worker/transport-option";
import { ms, summarize, table, withBenchDatabase } from "./support";

/*
 * What the consumer runtime's bookkeeping costs. Messages/s of `apply-and-record` with a local
 * effect, one message per transaction, through ConsumerRuntime.process: decide under the key's
 * row lock, the handler's one-row INSERT, journal `applied`, sequence advance, one COMMIT; once
 * with the handler queueing its INSERT (tx.queue: sent with the bookkeeping and the COMMIT, two
 * round trips per message) and once running it at once (tx.query: three round trips). Against
 * baselines in the same run, on the same database and the same connection pool, that write one
 * row per transaction and nothing else:
 *
 *   INSERT per transaction   BEGIN; INSERT one row; COMMIT, as a handler writes its effect
 *                            without the runtime: the baseline of the target (>= 0.7x).
 *   INSERT, autocommit       the INSERT alone in its implicit transaction: one round trip, the floor.
 *
 * At C=4 also `consumer, batched`: the same queued INSERT with the runtime's batching on
 * (`batch: { maxMessages: BENCH_BATCH_MESSAGES (32), lingerMs: BENCH_BATCH_LINGER_MS (2) }`), fed
 * with C x maxMessages keys at once as a transport feeds it, so about C transactions run at once
 * like the baselines' C connections; `batched ratio` is its rate over the INSERT per transaction
 * at the same C. Then the machine's ceiling for one-row transactions, pgbench (a one-row INSERT
 * per transaction, 4 and 8 clients, when `pgbench` is on the PATH; else the same from node), and
 * the batched mode's share of it.
 *
 * The broker is left out on purpose: this is the database path a message takes, the part the
 * runtime adds. Each rate is all of a mode's messages over all of its time.
 *
 * `-- --transport redis|rabbitmq|nats` measures the broker's part instead: the same handler (a
 * queued INSERT) end to end through the broker, from the first publish (confirmed by the broker)
 * to the last outcome committed and acknowledged, the worker in the same process, `concurrency`
 * keys at a time; beside it, in the same run and in alternating rounds, the same messages handed
 * to ConsumerRuntime.process directly with as many keys at a time (the in-process figure).
 */

// Short rounds, many of them, modes taking turns: the machine's other work (and the disk's flush
// times, which dominate a commit) then weighs on every mode alike.
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? "1,4").split(",").map(Number);
const KEYS = 200;
const TARGET = 0.7;

const registry = createKindRegistry([
  {
    kind: "ledger.entry",
    schemas: { "1": z.looseObject({ schema: z.literal("1"), account: z.string(), amount: z.int() }) },
    temporaryReasons: {},
  },
]);

const CONSUMER_QUEUED = "consumer, handler queues its INSERT";
const CONSUMER_NOW = "consumer, handler INSERTs now";
const CONSUMER_BATCHED = "consumer, batched";
const MODES = ["INSERT per transaction", "INSERT, autocommit", CONSUMER_QUEUED, CONSUMER_NOW] as const;
const ALL_MODES = [...MODES, CONSUMER_BATCHED] as const;
type Mode = (typeof ALL_MODES)[number];
const BATCH_C = 4;
const BATCH = {
  maxMessages: Number(process.env.BENCH_BATCH_MESSAGES ?? 32),
  lingerMs: Number(process.env.BENCH_BATCH_LINGER_MS ?? 2),
};
/** A batched round is longer: C x maxMessages messages are in hand at once. */
const BATCH_ROUND = Number(process.env.BENCH_BATCH_ROUND ?? MESSAGES * 5);
const BATCH_TARGET = 2.0;
const modesAt = (c: number): readonly Mode[] => (c === BATCH_C ? ALL_MODES : MODES);
// Per mode, so the consumer's keys see every sequence number (a skipped one would be a gap).
const serial = Object.fromEntries(ALL_MODES.map((m) => [m, 0])) as Record<Mode, number>;

/** Message n of a mode: keys round-robin, each key's sequence counting up, so every one applies. */
function message(prefix: string, n: number): IncomingMessage {
  const key = `${prefix}-${n % KEYS}`;
  const sequence = Math.floor(n / KEYS) + 1;
  const envelope = {
    id: `msg-${n}`,
    kind: "ledger.entry",
    effectKey: `${key}:entry-${sequence}`,
    sequenceKey: key,
    sequence,
    payload: { schema: "1", account: key, amount: n % 100 },
  };
  return {
    body: { parsed: true, value: envelope, text: JSON.stringify(envelope) },
    source: { transport: "bench" },
    deliveryCount: 1,
  };
}

/**
 * Runs messages first..first+MESSAGES-1 with `concurrency` workers, worker w taking the keys with
 * key % concurrency === w, each key in sequence order (as a broker partitioned by key would).
 */
async function runPerKey(
  first: number,
  concurrency: number,
  task: (n: number) => Promise<void>,
  count = MESSAGES,
): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let n = first; n < first + count; n++) {
        if ((n % KEYS) % concurrency !== w) continue;
        const started = performance.now();
        await task(n);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

/** Writes the ledger row: queued with the bookkeeping and the COMMIT, or run at once. */
function ledgerHandler(write: "queue" | "query"): Handler {
  return {
    effect: "local",
    async apply({ tx, envelope, effectKey }) {
      const { account, amount } = envelope.payload as unknown as { account: string; amount: number };
      const text = `INSERT INTO bench_ledger (effect_key, account, amount) VALUES ($1, $2, $3)`;
      if (write === "queue") tx.queue(text, [effectKey, account, amount]);
      else await tx.query(text, [effectKey, account, amount]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Through a broker (`--transport`).

const BROKER_MESSAGES = Number(process.env.BENCH_BROKER_MESSAGES ?? 500);
const BROKER_ROUNDS = Number(process.env.BENCH_BROKER_ROUNDS ?? 6);
const BROKER_CONCURRENCY = Number(process.env.BENCH_BROKER_CONCURRENCY ?? 4);

const TRANSPORT = transportOption(null);

interface BenchBroker {
  label: string;
  transport: Transport;
  /** Publishes in batches of 100, each confirmed by the broker before the next. */
  publish(envelopes: unknown[]): Promise<void>;
  close(): Promise<void>;
}

async function openBenchBroker(name: TransportName): Promise<BenchBroker> {
  const broker = brokerFor(name);
  if (!(await broker.reachable())) throw new Error(`${broker.title} does not answer at ${broker.url()}`);
  const where = `rc-bench-${randomBytes(4).toString("hex")}`;
  const session = await broker.open(where, { subject: "entries" });
  return {
    label: broker.describe(where, "bench"),
    transport: broker.transport(where, {
      group: "bench",
      consumer: "bench-1",
      batchSize: 100,
      maxInMemory: 400,
      concurrency: BROKER_CONCURRENCY,
      redis: { blockMs: 100 },
    }),
    publish: (envelopes) => session.publishAll(envelopes),
    async close() {
      await session.remove();
      await session.close();
    },
  };
}

/**
 * Rounds of BROKER_MESSAGES messages, taking turns: in-process (ConsumerRuntime.process, as the
 * table without --transport measures it) and end to end through the broker.
 */
async function throughBroker(name: TransportName, inProcess: ConsumerRuntime): Promise<void> {
  const broker = await openBenchBroker(name);
  // Outcomes by effectKey; a round waits for all of its messages.
  const done = new Map<string, { at: number; type: string }>();
  let expecting: { keys: string[]; resolve: () => void } | null = null;
  const consumer = createInProcessConsumer({
    name: `bench-${name}`,
    registry,
    handlers: { "ledger.entry": ledgerHandler("queue") },
    replays: false,
    onOutcome: (outcome, message) => {
      if (outcome.type === "wait" || outcome.type === "retry") return;
      const effectKey = (message.body.parsed ? (message.body.value as { effectKey?: string }) : {}).effectKey;
      if (effectKey) done.set(effectKey, { at: performance.now(), type: outcome.type });
      if (expecting && expecting.keys.every((k) => done.has(k))) expecting.resolve();
    },
  });
  const stop = new AbortController();
  const running = consumer.run({ transport: broker.transport, signal: stop.signal });
  const modes = ["in-process", `through ${name}`] as const;
  const counters = { "in-process": 0, [`through ${name}`]: 0 } as Record<string, number>;

  const round = async (mode: string): Promise<{ rate: number; latencies: number[] }> => {
    const first = counters[mode]!;
    counters[mode]! += BROKER_MESSAGES;
    const started = performance.now();
    if (mode === "in-process") {
      const latencies = await runPerKey(
        first,
        BROKER_CONCURRENCY,
        async (n) => {
          const outcome = await inProcess.process(message("inproc", n));
          if (outcome.type !== "applied") throw new Error(`message ${n}: ${JSON.stringify(outcome)}`);
        },
        BROKER_MESSAGES,
      );
      return { rate: BROKER_MESSAGES / ((performance.now() - started) / 1000), latencies };
    }
    const envelopes = Array.from({ length: BROKER_MESSAGES }, (_, i) => message(name, first + i).body);
    const values = envelopes.map((b) => (b as { value: { effectKey: string } }).value);
    const all = new Promise<void>((resolve) => (expecting = { keys: values.map((v) => v.effectKey), resolve }));
    await broker.publish(values);
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`round not done within 120 s through ${name}`)), 120_000).unref(),
    );
    await Promise.race([all, timeout]);
    expecting = null;
    const elapsed = performance.now() - started;
    const notApplied = values.filter((v) => done.get(v.effectKey)?.type !== "applied");
    if (notApplied.length > 0) throw new Error(`${notApplied.length} messages not applied through ${name}`);
    const latencies = values.map((v) => done.get(v.effectKey)!.at - started);
    return { rate: BROKER_MESSAGES / (elapsed / 1000), latencies };
  };

  try {
    for (const mode of modes) await round(mode); // warm-up, not counted
    const rates: Record<string, number[]> = Object.fromEntries(modes.map((m) => [m, []]));
    const latencies: Record<string, number[]> = Object.fromEntries(modes.map((m) => [m, []]));
    for (let r = 0; r < BROKER_ROUNDS; r++) {
      for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) {
        const result = await round(mode);
        rates[mode]!.push(result.rate);
        latencies[mode]!.push(...result.latencies);
      }
    }
    const harmonic = (xs: number[]) => xs.length / xs.reduce((sum, x) => sum + 1 / x, 0);
    const rows = modes.map((mode) => {
      const s = summarize(latencies[mode]!);
      return [`C=${BROKER_CONCURRENCY} ${mode}`, harmonic(rates[mode]!).toFixed(0), ms(s.p50), ms(s.p95), ms(s.max)];
    });
    console.log(
      `\n${BROKER_MESSAGES} messages per round, ${BROKER_ROUNDS} rounds per mode, ${broker.label}; ` +
        `latency: in-process per call; through the broker from the start of the round (published at once) to the outcome, so it includes the queue ahead of it\n`,
    );
    console.log(table(["mode", "messages/s", "p50 ms", "p95 ms", "max ms"], rows));
    const ratio = harmonic(rates[modes[1]]!) / harmonic(rates["in-process"]!);
    console.log(`\nthrough ${name}: ${ratio.toFixed(2)}x the in-process rate, end to end`);
  } finally {
    stop.abort();
    await running;
    await broker.close();
  }
}

const CEILING_SECONDS = Number(process.env.BENCH_CEILING_SECONDS ?? 5);

/**
 * Transactions/s of a one-row INSERT each, with 4 and with 8 clients, the best of the two: what
 * this machine's database commits one row at a time. pgbench when it is installed (its C client
 * adds the least), else the same from node on fresh connections.
 */
async function oneRowCeiling(
  url: string,
  insert: string,
): Promise<{ how: string; tps: number; each: { clients: number; tps: number }[] }> {
  const each: { clients: number; tps: number }[] = [];
  const pgbench = await promisify(execFile)("pgbench", ["--version"]).then(
    () => true,
    () => false,
  );
  if (pgbench) {
    const dir = await mkdtemp(path.join(tmpdir(), "rc-bench-"));
    try {
      const script = path.join(dir, "insert.sql");
      await writeFile(script, `INSERT INTO bench_rows (account, amount) VALUES ('pgbench', 1);\n`);
      for (const clients of [4, 8]) {
        const { stdout } = await promisify(execFile)("pgbench", [
          "-n",
          "-c",
          String(clients),
          "-j",
          "2",
          "-T",
          String(CEILING_SECONDS),
          "-f",
          script,
          url,
        ]);
        const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
        if (!Number.isFinite(tps)) throw new Error(`pgbench answered no tps: ${stdout}`);
        each.push({ clients, tps });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return { how: `pgbench, ${CEILING_SECONDS} s each`, tps: Math.max(...each.map((e) => e.tps)), each };
  }
  const pool = consumerPool();
  for (const clients of [4, 8]) {
    let done = 0;
    const until = performance.now() + CEILING_SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < until) {
            await client.query(insert, ["ceiling", 1]);
            done++;
          }
        } finally {
          client.release();
        }
      }),
    );
    each.push({ clients, tps: done / ((performance.now() - started) / 1000) });
  }
  return { how: `node, autocommit INSERT, ${CEILING_SECONDS} s each`, tps: Math.max(...each.map((e) => e.tps)), each };
}

async function main() {
  await withBenchDatabase("rc_bench_consumer", async (url) => {
    const pool = consumerPool();
    await pool.query(
      `CREATE TABLE bench_rows (id bigserial PRIMARY KEY, account text NOT NULL, amount integer NOT NULL)`,
    );
    await pool.query(
      `CREATE TABLE bench_ledger (effect_key text PRIMARY KEY, account text NOT NULL, amount integer NOT NULL)`,
    );
    // The two ways a local handler can write its effect (packages/consumer/src/types.ts, ConsumerTx).
    const runtime = (write: "queue" | "query") =>
      inProcessRuntime({ name: `bench-${write}`, registry, handlers: { "ledger.entry": ledgerHandler(write) } });
    if (TRANSPORT) {
      await throughBroker(TRANSPORT, runtime("queue"));
      await closeConsumerPool();
      return;
    }
    const queued = runtime("queue");
    const now = runtime("query");
    const batched = inProcessRuntime({
      name: "bench-batched",
      registry,
      handlers: { "ledger.entry": ledgerHandler("queue") },
      batch: BATCH,
    });
    const insert = `INSERT INTO bench_rows (account, amount) VALUES ($1, $2)`;
    const tasks: Record<Mode, (n: number) => Promise<void>> = {
      "INSERT per transaction": async (n) => {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          await client.query(insert, [`acct-${n % KEYS}`, n % 100]);
          await client.query("COMMIT");
        } finally {
          client.release();
        }
      },
      "INSERT, autocommit": async (n) => {
        await pool.query(insert, [`acct-${n % KEYS}`, n % 100]);
      },
      [CONSUMER_QUEUED]: async (n) => {
        const outcome = await queued.process(message("queued", n));
        if (outcome.type !== "applied") throw new Error(`message ${n}: ${JSON.stringify(outcome)}`);
      },
      [CONSUMER_NOW]: async (n) => {
        const outcome = await now.process(message("now", n));
        if (outcome.type !== "applied") throw new Error(`message ${n}: ${JSON.stringify(outcome)}`);
      },
      [CONSUMER_BATCHED]: async (n) => {
        const outcome = await batched.process(message("batched", n));
        if (outcome.type !== "applied") throw new Error(`message ${n}: ${JSON.stringify(outcome)}`);
      },
    };
    const round = async (mode: Mode, concurrency: number) => {
      // Batched: as many keys in hand as C batches hold, as a transport with `concurrency` C feeds it.
      const count = mode === CONSUMER_BATCHED ? BATCH_ROUND : MESSAGES;
      const workers = mode === CONSUMER_BATCHED ? concurrency * BATCH.maxMessages : concurrency;
      const first = serial[mode];
      serial[mode] += count;
      const started = performance.now();
      const cpu = process.cpuUsage();
      const latencies = await runPerKey(first, workers, tasks[mode], count);
      const used = process.cpuUsage(cpu);
      return {
        rate: count / ((performance.now() - started) / 1000),
        latencies,
        cpuMicros: (used.user + used.system) / count,
      };
    };

    const rows: string[][] = [];
    const verdicts: string[] = [];
    // The figure scripts compare across runs: C=1, handler queues its write, over INSERT per transaction.
    let headline: number | null = null;
    let batchedRatio: number | null = null;
    let batchedRate: number | null = null;
    for (const c of CONCURRENCY) {
      const modes = modesAt(c);
      for (const mode of modes) await round(mode, c); // warm-up, not counted
      const rates = Object.fromEntries(ALL_MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
      const latencies = Object.fromEntries(ALL_MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
      const cpu = Object.fromEntries(ALL_MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
      for (let r = 0; r < ROUNDS; r++) {
        // Rotated each round, so no mode always follows the same one.
        for (const mode of modes.map((_, i) => modes[(i + r) % modes.length]!)) {
          const result = await round(mode, c);
          rates[mode].push(result.rate);
          latencies[mode].push(...result.latencies);
          cpu[mode].push(result.cpuMicros);
        }
      }
      const harmonic = (xs: number[]) => xs.length / xs.reduce((sum, x) => sum + 1 / x, 0);
      for (const mode of modes) {
        const s = summarize(latencies[mode]);
        const micros = cpu[mode].reduce((sum, x) => sum + x, 0) / cpu[mode].length;
        rows.push([
          `C=${c} ${mode}`,
          harmonic(rates[mode]).toFixed(0),
          ms(s.p50),
          ms(s.p95),
          ms(s.max),
          micros.toFixed(0),
        ]);
      }
      console.log(`  C=${c}: ${ROUNDS} rounds of ${MESSAGES} messages per mode done`);
      const baseline = harmonic(rates["INSERT per transaction"]);
      const floor = harmonic(rates["INSERT, autocommit"]);
      for (const mode of [CONSUMER_QUEUED, CONSUMER_NOW] as const) {
        const ratio = harmonic(rates[mode]) / baseline;
        if (c === 1 && mode === CONSUMER_QUEUED) headline = ratio;
        verdicts.push(
          `C=${c} ${mode}: ${ratio.toFixed(2)}x the INSERT per transaction ` +
            `(target >= ${TARGET}: ${ratio >= TARGET ? "met" : "missed"}), ${(harmonic(rates[mode]) / floor).toFixed(2)}x the autocommit INSERT`,
        );
      }
      if (c === BATCH_C) {
        batchedRate = harmonic(rates[CONSUMER_BATCHED]);
        batchedRatio = batchedRate / baseline;
        verdicts.push(
          `C=${c} ${CONSUMER_BATCHED} (up to ${BATCH.maxMessages} per transaction, linger ${BATCH.lingerMs} ms): ` +
            `${batchedRatio.toFixed(2)}x the INSERT per transaction (target >= ${BATCH_TARGET}: ${batchedRatio >= BATCH_TARGET ? "met" : "missed"})`,
        );
      }
    }
    const { rows: counts } = await pool.query<{ applied: number; ledger: number }>(
      `SELECT (SELECT count(*)::int FROM effect_journal WHERE state = 'applied') AS applied,
              (SELECT count(*)::int FROM bench_ledger) AS ledger`,
    );
    if (counts[0]?.applied !== counts[0]?.ledger)
      throw new Error(`journal and ledger disagree: ${JSON.stringify(counts[0])}`);
    console.log(
      `\n${MESSAGES} messages per round (batched: ${BATCH_ROUND}), ${ROUNDS} rounds per mode, one message per transaction (batched: up to ${BATCH.maxMessages})\n`,
    );
    console.log(table(["mode", "messages/s", "p50 ms", "p95 ms", "max ms", "client CPU µs/msg"], rows));
    console.log(`\n${verdicts.join("\n")}`);
    console.log(`(${counts[0]?.applied} effects applied, each with its ledger row)`);
    if (headline !== null) console.log(`ratio: ${headline.toFixed(2)}`);
    if (batchedRatio !== null) console.log(`batched ratio: ${batchedRatio.toFixed(2)}`);
    if (batchedRate !== null) {
      const ceiling = await oneRowCeiling(url, insert);
      console.log(
        `one-row INSERT per transaction ceiling (${ceiling.how}): ${ceiling.tps.toFixed(0)} TPS ` +
          `(${ceiling.each.map((e) => `${e.clients} clients ${e.tps.toFixed(0)}`).join(", ")}); ` +
          `batched C=${BATCH_C}: ${batchedRate.toFixed(0)} msg/s = ${(batchedRate / ceiling.tps).toFixed(2)}x the ceiling`,
      );
    }
    await closeConsumerPool();
  });
}

await main();
