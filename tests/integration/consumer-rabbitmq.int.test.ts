/**
 * The RabbitMQ transport on the real RabbitMQ (a quorum queue per test) and PostgreSQL: the ack
 * goes out only after the outcome committed, a connection cut mid-message brings the message back
 * and no ack crosses to the new channel, `x-delivery-count` feeds the delivery limit, and a retry's
 * delay holds no other message up. RabbitMQ missing fails the file (see tests/support/consumer.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ChannelModel, ConfirmChannel } from "amqplib";
import type { InProcessConsumerOptions } from "@/testing/worker/in-process";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually, reminder, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import {
  connectRabbitMq,
  declareQueue,
  publish,
  RabbitMqTransport,
  rabbitmqReachable,
  rabbitmqUrl,
  type RabbitMqOptions,
} from "@review-console/consumer/rabbitmq";
import { hostAndPort, TcpProxy, throughProxy } from "@/testing/worker/tcp-proxy";
import { recordingLogger, setupBrokerTest, startTransportWorker } from "../support/consumer";
import { CREATE_LEDGER, gatedLedger, ledgerRegistry } from "../support/ledger";

const brokerTest = await setupBrokerTest("consumer-rabbitmq", {
  label: "RabbitMQ",
  url: rabbitmqUrl(),
  start:
    "start one (Debian: `apt-get install rabbitmq-server`, then `rabbitmq-server -detached`; `bash .ci/run` does both) or set RABBITMQ_URL",
  reachable: () => rabbitmqReachable(),
});
const { sql, provider, workers, cleanups } = brokerTest;

let connection: ChannelModel;
let channel: ConfirmChannel;

beforeAll(async () => {
  connection = await connectRabbitMq();
  channel = await connection.createConfirmChannel();
  cleanups.push(() => connection.close());
  await sql(CREATE_LEDGER);
});

function ledgerEntry(key: string, sequence: number, account = "acct") {
  return {
    id: `msg-${key}-${sequence}`,
    kind: "ledger.entry",
    effectKey: `${key}:entry-${sequence}`,
    sequenceKey: key,
    sequence,
    payload: { schema: "1", account, amount: sequence },
  };
}

async function newQueue(): Promise<string> {
  const queue = uniqueName("rc-test-rabbitmq");
  await declareQueue(channel, queue);
  cleanups.push(() => channel.deleteQueue(queue));
  return queue;
}

function start(options: Partial<InProcessConsumerOptions>, transport: RabbitMqOptions): RunningWorker {
  const w = startTransportWorker(
    {
      name: uniqueName("rabbitmq-worker"),
      registry: ledgerRegistry,
      handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
      effectLeaseMs: 2000,
      gapGraceMs: 300,
      replays: false,
      ...options,
    },
    new RabbitMqTransport({ concurrency: 4, prefetch: 20, ...transport }),
  );
  workers.push(w);
  return w;
}

const outcomesOf = (w: RunningWorker, id: string) => w.outcomes.filter((o) => o.message.source.transportId === id);
const finalOutcome = (w: RunningWorker, id: string) =>
  eventually(
    () => outcomesOf(w, id).find((o) => o.outcome.type !== "wait" && o.outcome.type !== "retry"),
    15_000,
    `the outcome of ${id}`,
  );
const ready = async (queue: string) => (await channel.checkQueue(queue)).messageCount;

describe.skipIf(!brokerTest.up)("RabbitMQ transport", () => {
  it("declares a quorum queue and acks only after the commit; a connection cut mid-message brings it back, and no ack crosses to the new channel", async () => {
    const queue = uniqueName("rc-test-rabbitmq");
    cleanups.push(() => channel.deleteQueue(queue));
    const proxy = new TcpProxy(hostAndPort(rabbitmqUrl(), 5672));
    await proxy.start();
    cleanups.push(() => proxy.stop());
    const ledger = gatedLedger();
    const logger = recordingLogger();
    const w = start(
      { handlers: { "ledger.entry": ledger.handler } },
      { url: throughProxy(rabbitmqUrl(), proxy.port), queue, logger },
    );
    const key = uniqueName("acct");

    // The transport declared it: a durable quorum queue (a classic declaration of it is refused).
    await eventually(() => logger.lines.some((l) => l.message === "consuming from RabbitMQ"), 10_000, "the queue");
    const probe = await connection.createChannel();
    probe.on("error", () => {});
    await expect(probe.assertQueue(queue, { durable: true })).rejects.toThrow(/x-queue-type/);

    // Delivery tag 1 on the first channel: applied and acked.
    const first = await publish(channel, queue, ledgerEntry(key, 1));
    expect(await finalOutcome(w, first)).toMatchObject({ outcome: { type: "applied" }, message: { deliveryCount: 1 } });

    // Delivery tag 2: held inside its transaction; not acked, so the cut gives it back to the queue.
    const gated = await publish(channel, queue, ledgerEntry(key, 2, "gated"));
    await ledger.reached;
    expect(proxy.cut()).toBe(1);
    // On the new channel, the returned message is delivery tag 1 and the next one tag 2: an ack
    // carried over from the dead channel would acknowledge that one, unprocessed.
    const other = uniqueName("acct");
    await eventually(
      () => logger.lines.filter((l) => l.message === "consuming from RabbitMQ").length === 2,
      10_000,
      "the second channel",
    );
    const next = await publish(channel, queue, ledgerEntry(other, 1));
    expect(await finalOutcome(w, next)).toMatchObject({ outcome: { type: "applied" } });

    ledger.open();
    const [firstRun, secondRun] = await eventually(() => {
      const runs = outcomesOf(w, gated).filter((o) => o.outcome.type !== "wait");
      return runs.length >= 2 ? runs : undefined;
    }, 15_000);
    expect(firstRun).toMatchObject({ outcome: { type: "applied" }, message: { deliveryCount: 1 } });
    expect(secondRun, "the redelivery after the cut, counted by x-delivery-count").toMatchObject({
      outcome: { type: "duplicate-suppressed", because: "sequence-already-applied" },
      message: { deliveryCount: 2 },
    });
    const rows = await sql(`SELECT effect_key FROM ledger WHERE account = 'gated'`);
    expect(rows, "the effect exists once").toHaveLength(1);

    await w.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ready(queue), "every message acked, none came back on stop").toBe(0);
    const reconnections = logger.lines.filter((l) => l.message === "RabbitMQ connection lost; reconnecting");
    expect(reconnections, "one reconnection: no channel error (an unknown delivery tag) after it").toHaveLength(1);
    expect(JSON.stringify(logger.lines)).not.toMatch(/PRECONDITION/);
  });

  it("the delivery count comes from x-delivery-count: a message returned three times is a delivery-limit record at the fourth", async () => {
    const queue = await newQueue();
    const invoice = uniqueName("inv");
    const id = await publish(channel, queue, reminder(invoice, 1));
    // Three deliveries returned with requeue, as crashed or rejecting consumers would.
    const raw = await connection.createChannel();
    for (let returned = 0; returned < 3;) {
      const m = await raw.get(queue, { noAck: false });
      if (!m) continue;
      raw.nack(m, false, true);
      returned++;
    }
    await raw.close();

    const w = start({ maxDeliveries: 3 }, { queue });
    const outcome = await finalOutcome(w, id);
    expect(outcome.message.deliveryCount).toBe(4);
    expect(outcome.outcome).toMatchObject({ type: "review", category: "manual-review", reason: "delivery-limit" });
    const [record] = await sql(`SELECT attempts, required_check, source FROM review_records WHERE message_id = $1`, [
      `msg-${invoice}-1`,
    ]);
    expect(record.attempts).toBe(4);
    expect(record.required_check).toContain("delivered 4 times");
    expect(record.source).toMatchObject({ transport: "rabbitmq", queue, transportId: id });
    expect(provider.sent.filter((e) => e.request.metadata?.sequenceKey === invoice)).toHaveLength(0);
    await w.stop();
    expect(await ready(queue), "acked after the record").toBe(0);
  });

  it("an x-delivery-limit at or below maxDeliveries is refused at start", async () => {
    const transport = new RabbitMqTransport({
      queue: uniqueName("rc-test-rabbitmq"),
      queueArguments: { "x-delivery-limit": 5 },
    });
    const logger = recordingLogger();
    await expect(
      transport.run(async () => ({ ack: true }), new AbortController().signal, { maxDeliveries: 10, logger }),
    ).rejects.toThrow(/x-delivery-limit 5 is not above the consumer's maxDeliveries 10/);
  });

  it("a retry's delay holds no other message up: the channel goes on delivering while it waits", async () => {
    const queue = await newQueue();
    const slow = uniqueName("inv");
    provider.rules.push({ action: "unavailable", times: 1, match: (r) => r.metadata?.sequenceKey === slow });
    // One key at a time: a retry that blocked the worker would hold every later message.
    const w = start({}, { queue, concurrency: 1 });
    const retried = await publish(channel, queue, reminder(slow, 1));
    await eventually(() => outcomesOf(w, retried).find((o) => o.outcome.type === "retry"), 10_000, "the retry");
    const otherInvoices = Array.from({ length: 5 }, () => uniqueName("inv"));
    const others: string[] = [];
    for (const invoice of otherInvoices) others.push(await publish(channel, queue, reminder(invoice, 1)));
    for (const id of others) expect(await finalOutcome(w, id)).toMatchObject({ outcome: { type: "applied" } });
    const done = await finalOutcome(w, retried);
    expect(done, "held in the worker, not returned to the queue").toMatchObject({
      outcome: { type: "applied" },
      message: { deliveryCount: 1 },
    });

    const calls = provider.calls.filter((c) => c.idempotencyKey === `${slow}:reminder-1`);
    expect(calls.map((c) => c.answer)).toEqual(["unavailable", "sent"]);
    expect(calls[1]!.at - calls[0]!.at, "the kind's delay (1000 ms)").toBeGreaterThanOrEqual(950);
    const sentMeanwhile = provider.calls.filter(
      (c) => otherInvoices.some((i) => c.idempotencyKey === `${i}:reminder-1`) && c.at < calls[1]!.at,
    );
    expect(sentMeanwhile, "the other messages were sent during the retry's delay").toHaveLength(5);
    await w.stop();
    expect(await ready(queue)).toBe(0);
  });
});
