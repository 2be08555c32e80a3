import "dotenv/config";
import { brokerFor } from "@/testing/worker/brokers";
import type { TransportName } from "@/testing/worker/transport-option";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { createInProcessConsumer } from "@/testing/worker/in-process";

/*
 * One worker process of the fault tests (scripts/scale-out-test.ts, scripts/restart-test.ts),
 * started by scripts/fleet.ts: the consumer package on a Redis stream (REDIS_URL), or on a
 * RabbitMQ quorum queue (RABBITMQ_URL) or a NATS JetStream stream (NATS_URL) when FLEET_TRANSPORT
 * says so, and the console's database (DATABASE_URL), sending one email per invoice reminder through the fake
 * provider at FLEET_PROVIDER_URL, and claiming the replays scheduled in the console. Each outcome
 * is printed as one `OUTCOME {json}` line for the parent to count.
 *
 *   FLEET_WORKER_NAME   this process (Redis's consumer in the group; the replay claims' holder)
 *   FLEET_TRANSPORT     redis (the default), rabbitmq or nats
 *   FLEET_STREAM        the stream (the queue on RabbitMQ); FLEET_GROUP the consumer group
 *                       (NATS's durable consumer; RabbitMQ has none)
 *   FLEET_LEASE_MS      the effect lease (a killed worker's started effects are judged after it)
 *   FLEET_REPLAY_LEASE_S  a replay claim's lease (a killed worker's claims run out after it)
 */

const name = process.env.FLEET_WORKER_NAME!;
const leaseMs = Number(process.env.FLEET_LEASE_MS ?? 2000);

const consumer = createInProcessConsumer({
  // Each process its own consumer name, so the test can tell whose replay claim was whose.
  name,
  handlers: { "invoice.reminder": emailReminderHandler(process.env.FLEET_PROVIDER_URL!) },
  effectLeaseMs: leaseMs,
  // The runtime's default: a busy CI machine must not turn slow provider answers into unknowns.
  effectTimeoutMs: 20_000,
  replays: {
    pollMs: 200,
    limit: Number(process.env.FLEET_REPLAY_LIMIT ?? 20),
    leaseSeconds: Number(process.env.FLEET_REPLAY_LEASE_S ?? 5),
  },
  onOutcome: (outcome, message) => {
    const reason =
      outcome.type === "review" || outcome.type === "wait" || outcome.type === "retry" ? outcome.reason : "";
    process.stdout.write(
      `OUTCOME ${JSON.stringify({ via: message.source.transport, type: outcome.type, reason, id: message.source.transportId, at: Date.now() })}\n`,
    );
  },
});

const controller = new AbortController();
process.on("SIGTERM", () => controller.abort());
await consumer.run({
  transport: brokerFor((process.env.FLEET_TRANSPORT ?? "redis") as TransportName).transport(process.env.FLEET_STREAM!, {
    group: process.env.FLEET_GROUP!,
    consumer: name,
    batchSize: 20,
    maxInMemory: 40,
    concurrency: 4,
    // A killed worker's entries are taken over once idle this long.
    redis: { blockMs: 200, claimIdleMs: 3000, claimEveryMs: 1000 },
    // A broker that went away is tried again at least every second.
    rabbitmq: { heartbeatSeconds: 5, maxReconnectDelayMs: 1000 },
    // Held messages are touched every third of it; a restarted server redelivers the rest after it.
    nats: { ackWaitMs: 6000 },
  }),
  signal: controller.signal,
});
process.exit(0);
