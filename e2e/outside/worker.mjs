// A worker as a team writes it in its own repository: it installs @review-console/consumer (and
// the client of its broker) and nothing of the console. It publishes a run of messages to its
// broker, then consumes them: valid ones create their effect once, the others become review
// records at the console (over its HTTP API). Prints what it saw as one JSON line.
import { createConsumer, httpDesk } from "@review-console/consumer";

const { TRANSPORT: transport, RUN_ID: run, CONSOLE_URL, CONSOLE_TOKEN } = process.env;
const KEYS = 4;
const PER_KEY = Number(process.env.PER_KEY ?? 5);

const valid = [];
for (let sequence = 1; sequence <= PER_KEY; sequence++) {
  for (let key = 0; key < KEYS; key++) {
    const sequenceKey = `${run}-invoice-${key}`;
    valid.push({
      id: `${run}-${key}-${sequence}`,
      kind: "invoice.reminder",
      effectKey: `${sequenceKey}:reminder-${sequence}`,
      sequenceKey,
      sequence,
      payload: { schema: "2021-03", invoiceId: sequenceKey },
    });
  }
}
// Two that break the contract: a record each, the text kept as it came.
const broken = [{ id: `${run}-broken`, kind: "invoice.reminder" }, `not json <b>${run}</b>`];
const expected = valid.length + broken.length;

const bindings = {
  async redis() {
    const { RedisStreamsTransport, createRedisClient, publish } = await import("@review-console/consumer/redis");
    const client = createRedisClient();
    await client.connect();
    for (const message of [...valid, ...broken]) await publish(client, run, message);
    await client.quit();
    return new RedisStreamsTransport({ stream: run, group: run, consumer: `${run}-1` });
  },
  async rabbitmq() {
    const { RabbitMqTransport, connectRabbitMq, declareQueue, publish } =
      await import("@review-console/consumer/rabbitmq");
    const connection = await connectRabbitMq();
    const channel = await connection.createConfirmChannel();
    await declareQueue(channel, run);
    for (const message of [...valid, ...broken]) await publish(channel, run, message);
    await connection.close();
    return new RabbitMqTransport({ queue: run });
  },
  async nats() {
    const { NatsJetStreamTransport, connectNats, ensureStream, publish } =
      await import("@review-console/consumer/nats");
    const { jetstream, jetstreamManager } = await import("@nats-io/jetstream");
    const connection = await connectNats();
    await ensureStream(await jetstreamManager(connection), run, [`${run}.>`]);
    const js = jetstream(connection);
    for (const message of [...valid, ...broken]) await publish(js, `${run}.in`, message);
    await connection.close();
    return new NatsJetStreamTransport({ stream: run, durable: run });
  },
};

const seen = { applied: 0, review: 0, other: 0 };
const stop = new AbortController();
const consumer = createConsumer({
  name: `outside-${transport}`,
  desk: httpDesk({ url: CONSOLE_URL, token: CONSOLE_TOKEN }),
  replays: false,
  handlers: {
    "invoice.reminder": {
      effect: "external",
      async execute({ effectKey }) {
        return { providerRef: `sent:${effectKey}` };
      },
    },
  },
  onOutcome(outcome) {
    if (outcome.type === "applied") seen.applied++;
    else if (outcome.type === "review") seen.review++;
    else if (outcome.type !== "wait" && outcome.type !== "retry") seen.other++;
    if (seen.applied + seen.review + seen.other >= expected) stop.abort();
  },
});
const timer = setTimeout(() => stop.abort(), 90_000);
await consumer.run({ transport: await bindings[transport](), signal: stop.signal });
clearTimeout(timer);
console.log(JSON.stringify({ ...seen, expected }));
process.exit(0);
