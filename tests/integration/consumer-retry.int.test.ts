/**
 * Bounded retry is durable: the count of failed attempts and the time of the next one live in
 * PostgreSQL (consumer_attempts), so a worker restart neither resets the count nor skips the
 * delay, and a message already routed to review is routed again on redelivery, never re-run.
 */
import { describe, expect, it } from "vitest";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually, reminder, startWorker, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import { publish } from "@review-console/consumer/redis";
import { setupConsumerTest } from "../support/consumer";

const consumerTest = await setupConsumerTest("consumer-retry");
const { redisUp, sql, provider, workers } = consumerTest;

function start(stream: string, name: string, consumer: string) {
  const w = startWorker(
    {
      name,
      handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
      effectLeaseMs: 2000,
      replays: false,
    },
    { stream, group: "workers", consumer, claimIdleMs: 300 },
  );
  workers.push(w);
  return w;
}

const outcomeOf = (w: RunningWorker, entryId: string, type: string) =>
  eventually(
    () => w.outcomes.find((o) => o.message.source.transportId === entryId && o.outcome.type === type)?.outcome,
    10_000,
    `a ${type} outcome of ${entryId}`,
  );
const callsFor = (key: string) => provider.calls.filter((c) => c.idempotencyKey === key);

describe.skipIf(!redisUp)("bounded retry survives a worker restart", () => {
  it.each([
    ["restarted under the same name (its own pending entries)", "w1"],
    ["replaced by another consumer (XAUTOCLAIM)", "w2"],
  ])("%s: the count and the delay hold, and the limit ends in retry-limit", async (_label, nextConsumer) => {
    const stream = uniqueName("rc-test-retry");
    const name = uniqueName("retry-worker");
    const invoice = uniqueName("inv");
    const key = `${invoice}:reminder-1`;
    provider.rules.push({ action: "unavailable", match: (_r, k) => k === key, times: 10 });

    const first = start(stream, name, "w1");
    const id = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    expect(await outcomeOf(first, id, "retry")).toMatchObject({ reason: "dependency-not-ready", failedAttempts: 1 });
    await first.stop();
    const [row] = await sql(
      `SELECT failed_attempts, last_reason, routed_reason, next_attempt_at > now() AS later
         FROM consumer_attempts WHERE consumer = $1 AND attempt_key = $2`,
      [name, `message:msg-${invoice}-1`],
    );
    expect(row).toEqual({ failed_attempts: 1, last_reason: "dependency-not-ready", routed_reason: null, later: true });

    // A fresh process: it must not start the count again, nor call before the delay is over.
    const second = start(stream, name, nextConsumer);
    const review = await outcomeOf(second, id, "review");
    expect(review).toMatchObject({ category: "manual-review", reason: "retry-limit", attempts: 2 });
    const calls = callsFor(key);
    expect(calls.map((c) => c.answer)).toEqual(["unavailable", "unavailable"]);
    expect(calls[1]!.at - calls[0]!.at, "the kind's delay (1000 ms) held across the restart").toBeGreaterThanOrEqual(
      950,
    );
    const [record] = await sql(`SELECT attempts, reason, last_error FROM review_records WHERE message_id = $1`, [
      `msg-${invoice}-1`,
    ]);
    expect(record).toMatchObject({ attempts: 2, reason: "retry-limit" });
    expect(record.last_error).toContain("503");
  });

  it("a message routed to retry-limit and delivered again is routed again, never re-run", async () => {
    const stream = uniqueName("rc-test-retry");
    const name = uniqueName("retry-worker");
    const invoice = uniqueName("inv");
    const key = `${invoice}:reminder-1`;
    provider.rules.push({ action: "unavailable", match: (_r, k) => k === key, times: 2 });
    const w = start(stream, name, "w1");
    const id = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    await outcomeOf(w, id, "review");
    const again = await publish(consumerTest.redis, stream, reminder(invoice, 1));
    expect(await outcomeOf(w, again, "review")).toMatchObject({ reason: "retry-limit" });
    expect(callsFor(key)).toHaveLength(2);
    const records = await sql(`SELECT report_count, status::text FROM review_records WHERE message_id = $1`, [
      `msg-${invoice}-1`,
    ]);
    expect(records).toEqual([{ report_count: 2, status: "open" }]);
  });
});
