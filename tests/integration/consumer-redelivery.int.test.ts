/**
 * Redelivery on the real Redis: a lost acknowledgement, a restart under the same name (own
 * pending entries first), entries of a dead consumer taken over (XAUTOCLAIM), and the delivery
 * count limit that turns a message handed out again and again into a review record.
 */
import { describe, expect, it } from "vitest";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually, reminder, startWorker, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import { createRedisClient, publish, type RedisClient } from "@review-console/consumer/redis";
import { setupConsumerTest } from "../support/consumer";

const consumerTest = await setupConsumerTest("consumer-redelivery");
const { redisUp, sql, provider, workers } = consumerTest;

function start(
  stream: string,
  consumer: string,
  options: { name?: string; maxDeliveries?: number } = {},
  client?: RedisClient,
) {
  const w = startWorker(
    {
      name: options.name ?? "redelivery-worker",
      handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
      effectLeaseMs: 2000,
      gapGraceMs: 200,
      maxDeliveries: options.maxDeliveries ?? 10,
      replays: false,
    },
    { stream, group: "workers", consumer, claimIdleMs: 500, ...(client ? { client } : {}) },
  );
  workers.push(w);
  return w;
}

// The first final outcome (a gap first waits out its grace period).
const outcomeOf = (w: RunningWorker, entryId: string) =>
  eventually(
    () => w.outcomes.find((o) => o.message.source.transportId === entryId && o.outcome.type !== "wait")?.outcome,
    10_000,
    `outcome of ${entryId}`,
  );
const pending = async (stream: string) => Number((await consumerTest.redis.xPending(stream, "workers")).pending);
const emailsFor = (invoice: string) => provider.sent.filter((e) => e.request.metadata?.sequenceKey === invoice);

/** Reads entries as `consumer` without processing them, as a worker that dies right after would. */
async function readAndDie(stream: string, consumer: string, times = 1): Promise<void> {
  await consumerTest.redis.xGroupCreate(stream, "workers", "0", { MKSTREAM: true }).catch(() => {});
  await consumerTest.redis.xReadGroup("workers", consumer, { key: stream, id: ">" }, { COUNT: 100 });
  // Reading one's own pending entries again (id 0) counts as another delivery.
  for (let i = 1; i < times; i++)
    await consumerTest.redis.xReadGroup("workers", consumer, { key: stream, id: "0" }, { COUNT: 100 });
}

describe.skipIf(!redisUp)("redelivery", () => {
  it("after a lost ack the restarted worker takes its own pending entry first and creates no second effect", async () => {
    const stream = uniqueName("rc-test-redelivery");
    const invoice = uniqueName("inv");
    // This worker's XACK never reaches Redis: the outcome commits, the entry stays pending.
    const lossy = createRedisClient();
    lossy.on("error", () => {});
    await lossy.connect();
    let acksLost = 0;
    Object.defineProperty(lossy, "xAck", {
      value: async () => {
        acksLost++;
        return 0;
      },
    });
    const first = start(stream, "w1", {}, lossy);
    const id = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    expect(await outcomeOf(first, id)).toMatchObject({ type: "applied" });
    await first.stop();
    await lossy.quit();
    expect(acksLost).toBe(1);
    expect(await pending(stream)).toBe(1);

    const restarted = start(stream, "w1");
    expect(await outcomeOf(restarted, id)).toEqual({
      type: "duplicate-suppressed",
      because: "sequence-already-applied",
    });
    const delivery = restarted.outcomes.find((o) => o.message.source.transportId === id)!.message;
    expect(delivery.deliveryCount, "the second delivery of the entry").toBe(2);
    await eventually(async () => (await pending(stream)) === 0, 5000, "the XACK");
    expect(emailsFor(invoice)).toHaveLength(1);
    expect(provider.snapshot().repeats, "the provider was never called again").toBe(0);
  });

  it("pending entries of a dead consumer are taken over once idle past the threshold", async () => {
    const stream = uniqueName("rc-test-redelivery");
    const invoice = uniqueName("inv");
    const a = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    const b = await publish(consumerTest.redis, stream, reminder(invoice, 2));
    await readAndDie(stream, "dead-worker");
    const w = start(stream, "w-alive");
    expect(await outcomeOf(w, a)).toMatchObject({ type: "applied" });
    expect(await outcomeOf(w, b)).toMatchObject({ type: "applied" });
    expect(
      emailsFor(invoice).map((e) => e.request.metadata?.sequence),
      "in stream order",
    ).toEqual([1, 2]);
    await eventually(async () => (await pending(stream)) === 0, 5000, "both acked");
  });
});

describe.skipIf(!redisUp)("delivery count limit", () => {
  it("a message delivered more often than the limit becomes a review record instead of running again", async () => {
    const stream = uniqueName("rc-test-delivery-limit");
    const invoice = uniqueName("inv");
    const id = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    await readAndDie(stream, "w1", 3);
    const w = start(stream, "w1", { maxDeliveries: 3 });
    const outcome = await outcomeOf(w, id);
    expect(outcome).toMatchObject({ type: "review", category: "manual-review", reason: "delivery-limit" });
    const [record] = await sql(`SELECT attempts, required_check, source FROM review_records WHERE message_id = $1`, [
      `msg-${invoice}-1`,
    ]);
    expect(record.attempts).toBe(4);
    expect(record.required_check).toContain("delivered 4 times");
    expect(record.source).toMatchObject({ transportId: id });
    expect(emailsFor(invoice)).toHaveLength(0);
    await eventually(async () => (await pending(stream)) === 0, 5000, "acked after the record");
  });

  it("over the limit, a decision that is itself a review keeps its own reason, and a duplicate is still suppressed", async () => {
    const stream = uniqueName("rc-test-delivery-limit");
    const invoice = uniqueName("inv");
    const applied = start(stream, "w0");
    await outcomeOf(applied, await publish(consumerTest.redis, stream, reminder(invoice, 1)));
    await applied.stop();
    const gap = await publish(consumerTest.redis, stream, reminder(invoice, 3));
    const duplicate = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    await readAndDie(stream, "w1", 4);
    const w = start(stream, "w1", { maxDeliveries: 2 });
    expect(await outcomeOf(w, gap)).toMatchObject({ reason: "sequence-gap" });
    expect(await outcomeOf(w, duplicate)).toMatchObject({ type: "duplicate-suppressed" });
    expect(emailsFor(invoice)).toHaveLength(1);
  });
});
