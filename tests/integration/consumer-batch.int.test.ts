/**
 * Batching (packages/consumer/src/batcher.ts, batch-store.ts, docs/decisions/0021): local effects
 * of messages with different keys commit in one transaction, and every guarantee of the one-by-one
 * path holds: a failing message in a batch fails alone (the others commit), two messages of one
 * key never share a batch and are decided in order, nothing is answered (so acknowledged) before
 * the batch commits, a batch redelivered after its commit is suppressed, and a batch that cannot
 * commit as a whole falls back to one transaction per message. Runs ConsumerRuntime.process
 * directly (the transports ack only what it returns), and one batching worker on Redis Streams
 * (skipped without Redis on a person's machine). About 10 s here.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createKindRegistry } from "@review-console/contract";
import {
  closeConsumerPool,
  type ConsumerRuntime,
  type ConsumerTx,
  type IncomingMessage,
  type Outcome,
  PermanentFailure,
} from "@review-console/consumer";
import { inProcessRuntime } from "@/testing/worker/in-process";
import {
  connectRedis,
  deleteStreams,
  eventually,
  redisReachable,
  startWorker,
  uniqueName,
} from "@/testing/worker/harness";
import { publish } from "@review-console/consumer/redis";
import { setupTestDatabase } from "../support/database";

const database = setupTestDatabase();

async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.current.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const registry = createKindRegistry([
  {
    kind: "batch.case",
    schemas: { "1": z.looseObject({ schema: z.literal("1"), action: z.string() }) },
    temporaryReasons: {},
  },
]);

/** What message `action` does: write its row (queued or at once), fail in one of the ways a handler can, or wait for a gate. */
const gates = new Map<string, Promise<void>>();
async function act(tx: ConsumerTx, effectKey: string, sequenceKey: string, action: string): Promise<void> {
  const insert = `INSERT INTO batch_rows (effect_key, sequence_key, amount, txid) VALUES ($1, $2, $3, pg_current_xact_id()::text)`;
  switch (action) {
    case "throw":
      throw new PermanentFailure("ledger-refused", "the ledger refused the entry");
    case "bad-queued": // violates the CHECK when the queued writes go out with the COMMIT
      tx.queue(insert, [effectKey, sequenceKey, -1]);
      return;
    case "bad-query": // fails at once, in the handler
      await tx.query(insert, [effectKey, sequenceKey, -1]);
      return;
    case "query":
      await tx.query(insert, [effectKey, sequenceKey, 1]);
      return;
    case "deferred": // a deferred constraint: only the COMMIT finds it
      tx.queue(`INSERT INTO batch_deferred (v) VALUES (1)`);
      tx.queue(insert, [effectKey, sequenceKey, 1]);
      return;
    default:
      if (gates.has(action)) await gates.get(action);
      tx.queue(insert, [effectKey, sequenceKey, 1]);
  }
}

function runtime(batch: { maxMessages: number; lingerMs: number } | false = { maxMessages: 50, lingerMs: 30 }) {
  return inProcessRuntime({
    name: uniqueName("batch"),
    registry,
    batch,
    handlers: {
      "batch.case": {
        effect: "local",
        apply: ({ tx, envelope, effectKey }) =>
          act(tx, effectKey, envelope.sequenceKey, (envelope.payload as unknown as { action: string }).action),
      },
    },
  });
}

function message(key: string, action = "ok", sequence = 1, deliveryCount = 1): IncomingMessage {
  const envelope = {
    id: `msg-${key}-${sequence}`,
    kind: "batch.case",
    effectKey: `${key}:${sequence}`,
    sequenceKey: key,
    sequence,
    payload: { schema: "1", action },
  };
  return {
    body: { parsed: true, value: envelope, text: JSON.stringify(envelope) },
    source: { transport: "test" },
    deliveryCount,
  };
}

const rowsOf = (prefix: string) =>
  sql<{ effect_key: string; sequence_key: string; txid: string }>(
    `SELECT effect_key, sequence_key, txid FROM batch_rows WHERE effect_key LIKE $1 ORDER BY batch_rows.id`,
    [`${prefix}%`],
  );
const journalOf = (prefix: string) =>
  sql<{ effect_key: string; state: string }>(
    `SELECT effect_key, state::text FROM effect_journal WHERE effect_key LIKE $1 ORDER BY effect_key`,
    [`${prefix}%`],
  );

beforeAll(async () => {
  await sql(`CREATE TABLE batch_rows (id bigserial PRIMARY KEY, effect_key text NOT NULL, sequence_key text NOT NULL,
                                     amount int NOT NULL CHECK (amount >= 0), txid text NOT NULL)`);
  await sql(`CREATE TABLE batch_deferred (v int, CONSTRAINT one_v UNIQUE (v) DEFERRABLE INITIALLY DEFERRED)`);
  await sql(`INSERT INTO batch_deferred (v) VALUES (1)`);
});
afterAll(() => closeConsumerPool());

describe("a batch", () => {
  it("commits the messages of different keys in one transaction, one journal entry each", async () => {
    const p = uniqueName("one-tx");
    const rt = runtime();
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => rt.process(message(`${p}-${i}`))));
    expect(outcomes.every((o) => o.type === "applied")).toBe(true);
    const rows = await rowsOf(p);
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.txid)).size).toBe(1);
    expect((await journalOf(p)).every((j) => j.state === "applied")).toBe(true);
  });

  it("without batching each message is a transaction of its own", async () => {
    const p = uniqueName("off");
    const rt = runtime(false);
    await Promise.all(Array.from({ length: 6 }, (_, i) => rt.process(message(`${p}-${i}`))));
    expect(new Set((await rowsOf(p)).map((r) => r.txid)).size).toBe(6);
  });

  it("a poisoned message fails alone: the others of its batch commit, it goes to review with nothing applied", async () => {
    const p = uniqueName("poison");
    const rt = runtime();
    const actions = ["ok", "throw", "ok", "bad-queued", "query", "bad-query", "ok", "bad-queued", "ok"];
    const outcomes = await Promise.all(actions.map((a, i) => rt.process(message(`${p}-${i}`, a))));
    const bad = new Set(["throw", "bad-queued", "bad-query"]);
    actions.forEach((a, i) => {
      if (bad.has(a)) expect(outcomes[i], `${i} ${a}`).toMatchObject({ type: "review", category: "manual-review" });
      else expect(outcomes[i], `${i} ${a}`).toEqual({ type: "applied", providerRef: null });
    });
    const rows = await rowsOf(p);
    expect(rows.map((r) => r.sequence_key).sort()).toEqual(
      actions
        .map((a, i) => (bad.has(a) ? null : `${p}-${i}`))
        .filter(Boolean)
        .sort(),
    );
    // The good ones still committed together, in one transaction.
    expect(new Set(rows.map((r) => r.txid)).size).toBe(1);
    const journal = await journalOf(p);
    expect(journal.map((j) => j.effect_key).sort()).toEqual(rows.map((r) => r.effect_key).sort());
    const records = await sql<{ key: string; reason: string; last_error: string }>(
      `SELECT message->>'sequenceKey' AS key, reason, last_error FROM review_records WHERE message->>'sequenceKey' LIKE $1`,
      [`${p}%`],
    );
    expect(records).toHaveLength(4);
    expect(records.find((r) => r.key === `${p}-1`)?.reason).toBe("ledger-refused");
    expect(records.find((r) => r.key === `${p}-3`)?.last_error).toMatch(/check constraint/);
    expect(records.find((r) => r.key === `${p}-5`)?.last_error).toMatch(/check constraint/);
  });

  it("two messages of one key never share a batch and are decided in their order", async () => {
    const p = uniqueName("same-key");
    const rt = runtime();
    const outcomes = await Promise.all([
      rt.process(message(`${p}-a`, "ok", 1)),
      rt.process(message(`${p}-a`, "ok", 2)),
      rt.process(message(`${p}-b`, "ok", 1)),
      rt.process(message(`${p}-a`, "ok", 3)),
    ]);
    expect(outcomes.map((o) => o.type)).toEqual(["applied", "applied", "applied", "applied"]);
    const rows = (await rowsOf(p)).filter((r) => r.sequence_key === `${p}-a`);
    expect(rows.map((r) => r.effect_key)).toEqual([`${p}-a:1`, `${p}-a:2`, `${p}-a:3`]);
    expect(new Set(rows.map((r) => r.txid)).size).toBe(3);
    const [state] = await sql<{ last: string }>(
      `SELECT last_sequence::text AS last FROM sequence_state WHERE sequence_key = $1`,
      [`${p}-a`],
    );
    expect(state?.last).toBe("3");
  });

  it("answers no message (so nothing is acknowledged) before the whole batch committed", async () => {
    const p = uniqueName("ack");
    let open!: () => void;
    gates.set(`gate-${p}`, new Promise<void>((resolve) => (open = resolve)));
    const rt = runtime();
    const answered: string[] = [];
    const first = rt.process(message(`${p}-0`)).then((o) => answered.push(`0:${o.type}`));
    const gated = rt.process(message(`${p}-1`, `gate-${p}`)).then((o) => answered.push(`1:${o.type}`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Message 0's handler ran long ago, but its batch is not committed: no answer, nothing visible.
    expect(answered).toEqual([]);
    expect(await rowsOf(p)).toEqual([]);
    expect(await journalOf(p)).toEqual([]);
    open();
    await Promise.all([first, gated]);
    expect(answered.sort()).toEqual(["0:applied", "1:applied"]);
    expect(await rowsOf(p)).toHaveLength(2);
  });

  it("a batch delivered again after its commit (killed before the acks) is suppressed, nothing applied twice", async () => {
    const p = uniqueName("again");
    const rt = runtime();
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => rt.process(message(`${p}-${i}`))));
    expect(first.every((o) => o.type === "applied")).toBe(true);
    // A new process (a fresh runtime) gets the same messages again, as the broker redelivers them.
    const again = await Promise.all(
      Array.from({ length: 8 }, (_, i) => runtime().process(message(`${p}-${i}`, "ok", 1, 2))),
    );
    expect(again.map((o: Outcome) => o.type)).toEqual(Array(8).fill("duplicate-suppressed"));
    expect(await rowsOf(p)).toHaveLength(8);
  });

  it("a batch whose COMMIT fails (a deferred constraint) runs its messages alone: only the culprit fails", async () => {
    const p = uniqueName("deferred");
    const rt = runtime();
    const settled = await Promise.allSettled(
      ["ok", "deferred", "ok", "ok"].map((a, i) => rt.process(message(`${p}-${i}`, a))),
    );
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const rows = await rowsOf(p);
    expect(rows.map((r) => r.sequence_key).sort()).toEqual([`${p}-0`, `${p}-2`, `${p}-3`]);
    expect((await journalOf(p)).map((j) => j.effect_key).sort()).toEqual([`${p}-0:1`, `${p}-2:1`, `${p}-3:1`]);
  });
});

const redisUp = await redisReachable();

describe.skipIf(!redisUp && !process.env.CI)("a batching worker on Redis Streams", () => {
  it("applies every message of many keys in order, in batches, and acks each one (nothing left pending)", async () => {
    const p = uniqueName("redis");
    const stream = `rc-batch-${p}`;
    const redis = await connectRedis();
    // A backlog, as after a burst: all 200 entries are in the stream before the worker starts.
    const keys = 40;
    const sequences = 5;
    const entries = [];
    for (let s = 1; s <= sequences; s++) {
      for (let k = 0; k < keys; k++) {
        entries.push(message(`${p}-${k}`, k === 7 && s === sequences ? "throw" : "ok", s).body.text);
      }
    }
    for (const entry of entries) await publish(redis, stream, entry);
    const worker = startWorker(
      {
        name: p,
        registry,
        replays: false,
        batch: { maxMessages: 8, lingerMs: 5 },
        handlers: {
          "batch.case": {
            effect: "local",
            apply: ({ tx, envelope, effectKey }) =>
              act(tx, effectKey, envelope.sequenceKey, (envelope.payload as unknown as { action: string }).action),
          },
        },
      },
      { stream, group: "batch", consumer: "w1", concurrency: 2, batchSize: 50, maxInMemory: 100 },
    );
    try {
      await eventually(
        () => worker.outcomes.filter((o) => o.outcome.type === "applied" || o.outcome.type === "review").length >= 200,
        60_000,
        "every message answered",
      );
      const rows = await rowsOf(p);
      expect(rows).toHaveLength(199);
      // Per key in sequence order; many keys to a transaction.
      const last = new Map<string, number>();
      for (const r of rows) {
        const sequence = Number(r.effect_key.split(":").at(-1));
        expect(sequence).toBeGreaterThan(last.get(r.sequence_key) ?? 0);
        last.set(r.sequence_key, sequence);
      }
      expect(new Set(rows.map((r) => r.txid)).size).toBeLessThan(100);
      await eventually(
        async () => (await redis.xPending(stream, "batch")).pending === 0,
        10_000,
        "every entry acknowledged",
      );
    } finally {
      await worker.stop();
      await deleteStreams(redis);
      await redis.quit();
    }
  });
});

describe("ConsumerRuntime's batch option", () => {
  it("refuses a batch size that is not a whole number >= 1", () => {
    expect(() => runtime({ maxMessages: 0, lingerMs: 1 })).toThrow(/maxMessages/);
  });

  it("is 1 message per transaction without it (the transports' key count is unchanged)", () => {
    const rt: ConsumerRuntime = runtime(false);
    expect(rt.batchMessages).toBe(1);
    expect(runtime({ maxMessages: 16, lingerMs: 1 }).batchMessages).toBe(16);
  });
});
