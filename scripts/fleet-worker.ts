import "dotenv/config";
import { RedisStreamsTransport } from "@review-console/consumer/redis";
import { emailReminderHandler } from "@/lib/worker/demo/reminder-handler";
import { createInProcessConsumer } from "@/lib/worker/in-process";

/*
 * One worker process of the fault tests (scripts/scale-out-test.ts, scripts/restart-test.ts),
 * started by scripts/fleet.ts: the consumer package on a Redis stream (REDIS_URL) and the
 * console's database (DATABASE_URL), sending one email per invoice reminder through the fake
 * provider at FLEET_PROVIDER_URL, and claiming the replays scheduled in the console. Each outcome
 * is printed as one `OUTCOME {json}` line for the parent to count.
 *
 *   FLEET_WORKER_NAME   this process (Redis's consumer in the group; the replay claims' holder)
 *   FLEET_STREAM        the stream; FLEET_GROUP the consumer group
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
      `OUTCOME ${JSON.stringify({ via: message.source.transport, type: outcome.type, reason, id: message.source.transportId })}\n`,
    );
  },
});

const controller = new AbortController();
process.on("SIGTERM", () => controller.abort());
await consumer.run({
  transport: new RedisStreamsTransport({
    stream: process.env.FLEET_STREAM!,
    group: process.env.FLEET_GROUP!,
    consumer: name,
    blockMs: 200,
    // A killed worker's entries are taken over once idle this long.
    claimIdleMs: 3000,
    claimEveryMs: 1000,
    batchSize: 20,
    maxInMemory: 40,
    concurrency: 4,
  }),
  signal: controller.signal,
});
process.exit(0);
