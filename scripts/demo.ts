import "dotenv/config";
import path from "node:path";
import { createInProcessConsumer } from "@/testing/worker/in-process";
import { FakeEmailProvider } from "@/testing/worker/demo/fake-email-provider";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { brokerFor } from "@/testing/worker/brokers";
import { type TransportName, transportOption } from "@/testing/worker/transport-option";
import { reportMessage, runMain } from "./run-main";
import type { IncomingMessage, Outcome, Transport } from "@review-console/consumer";
import { closeDb, db } from "@/lib/db/client";
import { LOCAL_DATA_DIR, localDatabase } from "@/lib/db/local";
import { migrate } from "@/lib/db/migrate";
import { demoCredentials } from "@/lib/seed";
import { prometheusMetrics, serveMetrics } from "@review-console/consumer/metrics";
import { Registry } from "prom-client";

/*
 * `npm run demo`: the consumer library behind a real broker, end to end (docs/consumer.md).
 * A fake email provider, a producer that writes invoice reminders to a Redis stream, a RabbitMQ
 * quorum queue or a NATS JetStream stream (`--transport redis|rabbitmq|nats`; duplicates,
 * a gap, a stale number, an unknown schema, a bad payload, text that is not JSON, a slow answer, a
 * dropped answer, 503s), and a worker that consumes them into the same database the console uses
 * (DATABASE_URL, else the embedded one under .data/). The worker keeps running and claims the
 * replays you schedule in the console (`npm start`), so you can watch them complete. Ctrl-C stops
 * it; `--exit` stops once the stream is worked off.
 */

const exitWhenDone = process.argv.includes("--exit");
const consoleUrl = process.env.CONSOLE_URL ?? `http://127.0.0.1:${process.env.PORT ?? "3000"}`;
const GROUP = "reminder-workers";
/** Where the reminders go on each broker: the same every run, and left in place at the end. */
const WHERE: Record<TransportName, () => string> = {
  redis: () => process.env.DEMO_STREAM ?? "review-console:demo:invoice-reminders",
  rabbitmq: () => process.env.DEMO_QUEUE ?? "review-console.demo.invoice-reminders",
  nats: () => process.env.DEMO_NATS_STREAM ?? "review-console-demo",
};

interface DemoBroker {
  where: string;
  transport: Transport;
  /** Publishes one envelope; returns the id the worker reports as `source.transportId`. */
  send(envelope: unknown): Promise<string>;
  close(): Promise<void>;
}

/** The broker of `--transport` (Redis by default), or null after saying how to start it. */
async function openDemoBroker(): Promise<DemoBroker | null> {
  const broker = brokerFor(transportOption("redis"));
  if (!(await broker.reachable())) {
    const { command, package: from } = broker.start;
    console.error(`${broker.title} does not answer at ${broker.url()}. Start one, e.g.${from ? ` (${from})` : ""}:`);
    console.error(`  ${command}`);
    return null;
  }
  const where = WHERE[broker.name]();
  const session = await broker.open(where, { subject: "invoice-reminders" });
  return {
    where: broker.describe(where, GROUP),
    // Redis alone is told when a dead consumer's entries are taken over (XAUTOCLAIM): after 30 s.
    transport: broker.transport(where, { group: GROUP, consumer: "demo-worker", redis: { claimIdleMs: 30_000 } }),
    send: (envelope) => session.publish(envelope),
    close: () => session.close(),
  };
}

function reminder(invoice: string, sequence: number, extra: Record<string, unknown> = {}) {
  return {
    id: `msg-${invoice}-${sequence}`,
    kind: "invoice.reminder",
    effectKey: `${invoice}:reminder-${sequence}`,
    sequenceKey: invoice,
    sequence,
    payload: { schema: "2021-03", invoiceId: invoice.replace(/^invoice-/, "") },
    ...extra,
  };
}

/** What each outcome line says. */
function describe(outcome: Outcome): string {
  switch (outcome.type) {
    case "applied":
      return outcome.providerRef ? `applied, provider reference ${outcome.providerRef}` : "applied";
    case "duplicate-suppressed":
      return `duplicate suppressed (${outcome.because})`;
    case "wait":
      return `waiting (${outcome.reason}), left unacknowledged and offered again`;
    case "retry":
      return `temporary failure (${outcome.reason}), retry in ${outcome.retryInMs} ms`;
    case "review":
      return `review record: ${outcome.category} / ${outcome.reason} -> ${consoleUrl}/reviews/${outcome.reviewId}`;
  }
}

function messageLabel(message: IncomingMessage): string {
  if (!message.body.parsed) return JSON.stringify(message.body.text.slice(0, 30));
  const v = message.body.value as { id?: unknown; sequenceKey?: unknown; sequence?: unknown };
  return typeof v.id === "string" ? v.id : "(no id)";
}

async function main(): Promise<number> {
  const broker = await openDemoBroker();
  if (!broker) return 1;
  const database = await localDatabase();
  process.env.DATABASE_URL = database.url;
  const provider = new FakeEmailProvider();
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  let closeMetrics = async (): Promise<void> => {};
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    for (const name of (await migrate(database.url)).applied) console.log(`migration applied: ${name}`);
    const credentials = await demoCredentials(database.embedded);
    await provider.start(Number(process.env.DEMO_PROVIDER_PORT ?? 0));
    console.log(
      `Database: ${database.embedded ? `embedded PostgreSQL (${path.relative(process.cwd(), LOCAL_DATA_DIR)})` : "DATABASE_URL"}`,
    );
    console.log(
      `Fake email provider: ${provider.url} (look an email up: ${provider.url}/v1/emails?idempotencyKey=<effectKey>)`,
    );
    console.log(`Broker: ${broker.where}`);
    // The worker's own /metrics, as a team's worker would serve it (docs/consumer.md#metrics).
    const registry = new Registry();
    const metrics = await serveMetrics({
      registry,
      port: Number(process.env.DEMO_METRICS_PORT ?? 9464),
      host: process.env.DEMO_METRICS_HOST ?? "127.0.0.1",
    });
    closeMetrics = () => metrics.close();
    console.log(`Worker metrics: ${metrics.url}`);

    // Each run gets its own invoices, so a second run tells its own story.
    const run = Date.now().toString(36).slice(-5);
    const inv = (n: number) => `invoice-${run}-${n}`;
    provider.rules.push(
      { action: "slow", slowMs: 3000, match: (r) => r.metadata?.sequenceKey === inv(506) },
      { action: "drop", match: (r) => r.metadata?.sequenceKey === inv(507) },
      { action: "unavailable", times: 1, match: (r) => r.metadata?.sequenceKey === inv(508) },
      { action: "unavailable", times: 2, match: (r) => r.metadata?.sequenceKey === inv(509) },
    );

    const done = new Set<string>();
    const waited = new Set<string>();
    const consumer = createInProcessConsumer({
      name: "demo-reminders",
      handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
      // Short, so the slow answer (3 s) outlives it: the lease is kept alive while the call runs.
      effectLeaseMs: 2000,
      gapGraceMs: 1000,
      replays: { pollMs: 1000 },
      metrics: prometheusMetrics({ registry }),
      onOutcome: (outcome, message) => {
        if (outcome.type !== "wait" && outcome.type !== "retry") done.add(message.source.transportId ?? "");
        // A wait is offered again every few hundred ms: say so once per message.
        if (outcome.type === "wait") {
          const key = `${message.source.transportId}:${outcome.reason}`;
          if (waited.has(key)) return;
          waited.add(key);
        }
        const replay = message.source.transport === "replay" ? "replay of " : "";
        console.log(`  ${(replay + messageLabel(message)).padEnd(34)} ${describe(outcome)}`);
      },
    });
    const worker = consumer.run({
      transport: broker.transport,
      signal: stop.signal,
    });

    console.log("\nProducer: writing invoice reminders\n");
    const sent: string[] = [];
    const send = async (envelope: unknown) => sent.push(await broker.send(envelope));
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await send(reminder(inv(501), 1));
    await send(reminder(inv(501), 2));
    await send(reminder(inv(501), 3));
    await send(reminder(inv(501), 2)); // a duplicate delivery
    await send(reminder(inv(502), 1));
    await send(reminder(inv(502), 3)); // 2 is missing: a gap
    await send(reminder(inv(503), 1));
    await send(reminder(inv(503), 2));
    // An older number with another effect: stale, must not move the invoice back.
    await send(reminder(inv(503), 1, { id: `msg-${inv(503)}-1-resent`, effectKey: `${inv(503)}:reminder-1-resent` }));
    await send(reminder(inv(504), 1, { payload: { schema: "2024-01", invoiceId: `${run}-504` } }));
    await send(reminder(inv(505), 1, { payload: { schema: "2021-03", invoiceId: 505 } }));
    await send(`reminder for invoice ${run}-510, please`); // not JSON at all
    await send(reminder(inv(506), 1)); // the provider answers after 3 s
    await send(reminder(inv(507), 1)); // the provider sends, then drops the answer
    await send(reminder(inv(508), 1)); // 503 once, then fine
    await send(reminder(inv(509), 1)); // 503 twice: past the kind's retry limit
    await pause(4000);
    await send(reminder(inv(502), 2)); // the late predecessor

    while (!stop.signal.aborted && sent.some((id) => !done.has(id))) await pause(200);
    if (!stop.signal.aborted) {
      const records = await db().$queryRaw<
        { id: string; reason: string; sequenceKey: string | null; sequence: string | null }[]
      >`
        SELECT id::text AS id, reason, sequence_key AS "sequenceKey", sequence::text AS sequence
          FROM review_records WHERE source->>'transportId' = ANY(${sent}::text[]) ORDER BY seq`;
      const dropped = provider.lookup(`${inv(507)}:reminder-1`);
      console.log(
        `\nAll ${sent.length} entries handled: ${provider.sent.length} emails sent, ${records.length} review records.`,
      );
      console.log(`Open the console (${consoleUrl}, \`npm start\`), filter the list by "${run}", and resolve them:`);
      const hint: Record<string, string> = {
        "sequence-gap": "message 2 has arrived since: Replay (as owner) -> applied, resolved",
        "stale-or-conflicting": "an older number: Cancel the effect (or leave a note)",
        "unsupported-schema": "this worker knows schema 2021-03 only: Cancel, or Correct and replay",
        "invalid-payload": `invoiceId must be a string: Correct and replay with {"schema":"2021-03","invoiceId":"${run}-505"}`,
        "invalid-contract": "not an envelope: Cancel, or Correct and replay with the missing fields",
        "effect-result-unknown": `the provider has it as ${dropped?.id ?? "?"}: Provider confirms: applied (as support)`,
        "retry-limit": "the provider is fine again: Replay -> applied, resolved",
      };
      for (const r of records) {
        const what = r.sequenceKey ? `${r.sequenceKey} #${r.sequence}` : "(no keys)";
        console.log(`  ${consoleUrl}/reviews/${r.id}  ${what.padEnd(24)} ${r.reason}: ${hint[r.reason] ?? ""}`);
      }
      const owner = credentials?.users.find((u) => u.role === "owner");
      const support = credentials?.users.find((u) => u.role === "support");
      if (owner && support) {
        console.log(
          `Sign in as ${owner.email} / ${owner.password} (owner) or ${support.email} / ${support.password} (support).`,
        );
      }
      if (exitWhenDone) stop.abort();
      else console.log("\nThe worker keeps claiming the replays you schedule; Ctrl-C stops it.\n");
    }
    await worker;
    return 0;
  } finally {
    await provider.stop();
    await closeMetrics().catch(() => {});
    await broker.close().catch(() => {});
    await closeDb();
    await database.release();
  }
}

runMain(main, reportMessage);
