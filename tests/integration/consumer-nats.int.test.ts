/**
 * The NATS JetStream transport on the real NATS server (a stream and durable pull consumer per
 * test) and PostgreSQL: acked only after the commit, a message comes back after its worker's
 * connection dropped, the message info's delivery count feeds the delivery limit (and MaxDeliver
 * must stay above it), a retry is a delayed NAK that holds no other message up, and in-progress
 * acks keep a slow provider call's message with its worker. NATS missing fails the file.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from "@nats-io/jetstream";
import { nanos, type NatsConnection } from "@nats-io/transport-node";
import type { InProcessConsumerOptions } from "@/testing/worker/in-process";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually, reminder, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import {
  connectNats,
  NatsJetStreamTransport,
  natsReachable,
  natsUrl,
  publish,
  type NatsJetStreamOptions,
} from "@review-console/consumer/nats";
import { hostAndPort, TcpProxy, throughProxy } from "@/testing/worker/tcp-proxy";
import { recordingLogger, setupBrokerTest, startTransportWorker } from "../support/consumer";
import { CREATE_LEDGER, gatedLedger, ledgerRegistry } from "../support/ledger";

const brokerTest = await setupBrokerTest("consumer-nats", {
  label: "NATS with JetStream",
  url: natsUrl(),
  start:
    "start one (Debian: `apt-get install nats-server`, then `nats-server -js -a 127.0.0.1 -p 4222 &`; `bash .ci/run` does both) or set NATS_URL",
  reachable: () => natsReachable(),
});
const { sql, provider, workers, cleanups } = brokerTest;

let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connectNats();
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  cleanups.push(() => nc.close());
  await sql(CREATE_LEDGER);
});

/** A stream of the test's own (deleted after the file), its subject, and the durable's name. */
function newStream() {
  const stream = `rc-test-nats-${randomBytes(5).toString("hex")}`;
  cleanups.push(() => jsm.streams.delete(stream));
  return { stream, subject: `${stream}.in`, durable: "workers" };
}

function start(
  options: Partial<InProcessConsumerOptions>,
  transport: Omit<NatsJetStreamOptions, "durable"> & { durable?: string },
): RunningWorker {
  const w = startTransportWorker(
    {
      name: "nats-worker",
      registry: ledgerRegistry,
      handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
      effectLeaseMs: 2000,
      gapGraceMs: 300,
      replays: false,
      ...options,
    },
    new NatsJetStreamTransport({ durable: "workers", concurrency: 4, ...transport }),
  );
  workers.push(w);
  return w;
}

const outcomesOf = (ws: RunningWorker[], id: string) =>
  ws.flatMap((w) => w.outcomes.filter((o) => o.message.source.transportId === id));
const finalOutcome = (ws: RunningWorker[], id: string) =>
  eventually(
    () => outcomesOf(ws, id).find((o) => o.outcome.type !== "wait" && o.outcome.type !== "retry"),
    15_000,
    `the outcome of ${id}`,
  );
const consumerInfo = (stream: string) => jsm.consumers.info(stream, "workers");
const settled = (stream: string) =>
  eventually(
    async () => {
      const info = await consumerInfo(stream);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    },
    10_000,
    "every message acked",
  );

describe.skipIf(!brokerTest.up)("NATS JetStream transport", () => {
  it("acks only after the commit; after its worker's connection dropped, the message comes back and its effect exists once", async () => {
    const { stream, subject } = newStream();
    const proxy = new TcpProxy(hostAndPort(natsUrl(), 4222));
    await proxy.start();
    cleanups.push(() => proxy.stop());
    const ledger = gatedLedger();
    const handlers = { "ledger.entry": ledger.handler };
    const cutOff = start({ handlers }, { servers: throughProxy(natsUrl(), proxy.port), stream, ackWaitMs: 1000 });
    const key = uniqueName("acct");
    await eventually(async () => (await consumerInfo(stream).catch(() => null)) !== null, 10_000, "the consumer");

    const id = await publish(js, subject, {
      id: `msg-${key}-1`,
      kind: "ledger.entry",
      effectKey: `${key}:entry-1`,
      sequenceKey: key,
      sequence: 1,
      payload: { schema: "1", account: "gated", amount: 1 },
    });
    await ledger.reached;
    expect((await consumerInfo(stream)).num_ack_pending, "running, not committed: not acked").toBe(1);

    // Cut off for longer than AckWait: no in-progress ack reaches the broker, which hands the
    // message to the other worker; that one waits on the key's lock until the first commits.
    expect(proxy.cut(3000)).toBe(1);
    const other = start({ handlers }, { stream, ackWaitMs: 1000 });
    await eventually(async () => (await consumerInfo(stream)).num_redelivered >= 1, 10_000, "the redelivery");
    ledger.open();

    const first = await finalOutcome([cutOff], id);
    expect(first).toMatchObject({ outcome: { type: "applied" }, message: { deliveryCount: 1 } });
    const again = await finalOutcome([other], id);
    expect(again, "the redelivery, counted by the broker").toMatchObject({
      outcome: { type: "duplicate-suppressed", because: "sequence-already-applied" },
      message: { deliveryCount: 2 },
    });
    expect(await sql(`SELECT 1 FROM ledger WHERE account = 'gated'`), "the effect exists once").toHaveLength(1);
    await settled(stream);

    // The cut-off worker reconnected by itself and takes its share again.
    await eventually(() => proxy.open > 0, 10_000, "the reconnection");
    const invoices = Array.from({ length: 6 }, () => uniqueName("inv"));
    const ids = await Promise.all(invoices.map((invoice) => publish(js, subject, reminder(invoice, 1))));
    for (const next of ids) await finalOutcome([cutOff, other], next);
    await settled(stream);
  });

  it("the delivery count of the message info feeds the delivery limit: NAKed three times, the fourth delivery is a record", async () => {
    const { stream, subject } = newStream();
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
    await jsm.consumers.add(stream, {
      durable_name: "workers",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(5000),
      max_deliver: 8,
    });
    const invoice = uniqueName("inv");
    const id = await publish(js, subject, reminder(invoice, 1));
    const raw = await js.consumers.get(stream, "workers");
    for (let naked = 0; naked < 3;) {
      const m = await raw.next({ expires: 1000 });
      if (!m) continue;
      m.nak();
      naked++;
    }

    const w = start({ maxDeliveries: 3 }, { stream });
    const outcome = await finalOutcome([w], id);
    expect(outcome.message.deliveryCount).toBe(4);
    expect(outcome.outcome).toMatchObject({ type: "review", category: "manual-review", reason: "delivery-limit" });
    const [record] = await sql(`SELECT attempts, required_check, source FROM review_records WHERE message_id = $1`, [
      `msg-${invoice}-1`,
    ]);
    expect(record.attempts).toBe(4);
    expect(record.required_check).toContain("delivered 4 times");
    expect(record.source).toMatchObject({ transport: "nats-jetstream", transportId: id });
    expect(provider.sent.filter((e) => e.request.metadata?.sequenceKey === invoice)).toHaveLength(0);
    await settled(stream);
  });

  it("a consumer whose MaxDeliver is not above maxDeliveries is refused at start", async () => {
    const { stream } = newStream();
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
    await jsm.consumers.add(stream, {
      durable_name: "workers",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_deliver: 3,
    });
    const transport = new NatsJetStreamTransport({ stream, durable: "workers" });
    await expect(
      transport.run(async () => ({ ack: true }), new AbortController().signal, {
        maxDeliveries: 3,
        logger: recordingLogger(),
      }),
    ).rejects.toThrow(/MaxDeliver 3, not above the consumer's maxDeliveries 3/);
  });

  it("a retry is a delayed NAK: the other messages run during its delay, and it comes back after it", async () => {
    const { stream, subject } = newStream();
    const slow = uniqueName("inv");
    provider.rules.push({ action: "unavailable", times: 1, match: (r) => r.metadata?.sequenceKey === slow });
    // One key at a time: a retry that blocked the worker would hold every later message.
    const w = start({}, { stream, concurrency: 1 });
    await eventually(async () => (await consumerInfo(stream).catch(() => null)) !== null, 10_000, "the consumer");
    const retried = await publish(js, subject, reminder(slow, 1));
    await eventually(() => outcomesOf([w], retried).find((o) => o.outcome.type === "retry"), 10_000, "the retry");
    const otherInvoices = Array.from({ length: 5 }, () => uniqueName("inv"));
    const others: string[] = [];
    for (const invoice of otherInvoices) others.push(await publish(js, subject, reminder(invoice, 1)));
    for (const id of others) expect(await finalOutcome([w], id)).toMatchObject({ outcome: { type: "applied" } });
    expect(await finalOutcome([w], retried), "back from the broker after the delay").toMatchObject({
      outcome: { type: "applied" },
      message: { deliveryCount: 2 },
    });

    const calls = provider.calls.filter((c) => c.idempotencyKey === `${slow}:reminder-1`);
    expect(calls.map((c) => c.answer)).toEqual(["unavailable", "sent"]);
    expect(calls[1]!.at - calls[0]!.at, "the kind's delay (1000 ms)").toBeGreaterThanOrEqual(950);
    const sentMeanwhile = provider.calls.filter(
      (c) => otherInvoices.some((i) => c.idempotencyKey === `${i}:reminder-1`) && c.at < calls[1]!.at,
    );
    expect(sentMeanwhile, "the other messages were sent during the retry's delay").toHaveLength(5);
    await settled(stream);
  });

  it("in-progress acks keep a message whose provider call outlasts AckWait with its worker", async () => {
    const { stream, subject } = newStream();
    const slow = uniqueName("inv");
    provider.rules.push({ action: "slow", slowMs: 2500, match: (r) => r.metadata?.sequenceKey === slow });
    // Two workers: a message the broker took for abandoned would go to the idle one.
    const ws = [
      start({ effectLeaseMs: 5000 }, { stream, ackWaitMs: 1000 }),
      start({ effectLeaseMs: 5000 }, { stream, ackWaitMs: 1000 }),
    ];
    await eventually(async () => (await consumerInfo(stream).catch(() => null)) !== null, 10_000, "the consumer");
    const id = await publish(js, subject, reminder(slow, 1));
    expect(await finalOutcome(ws, id)).toMatchObject({ outcome: { type: "applied" }, message: { deliveryCount: 1 } });
    expect(outcomesOf(ws, id), "delivered once").toHaveLength(1);
    expect(provider.calls.filter((c) => c.idempotencyKey === `${slow}:reminder-1`)).toHaveLength(1);
    expect((await consumerInfo(stream)).delivered.consumer_seq, "one delivery, no redelivery").toBe(1);
    await settled(stream);
  });
});
