import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type Consumer,
  type ConsumerInfo,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { connect, millis, nanos, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import type { Disposition, IncomingMessage, Transport, TransportContext, TransportLogger } from "../types.ts";
import { sleep } from "../sleep.ts";
import {
  KeyScheduler,
  keysAtOnce,
  partitionOf,
  scheduledTransportDefaults,
  textBody,
  transportLogger,
  type Held,
  type ScheduledTransportOptions,
  type Settled,
} from "./key-scheduler.ts";

export const DEFAULT_NATS_URL = "127.0.0.1:4222";
export const natsUrl = () => process.env.NATS_URL ?? DEFAULT_NATS_URL;

export interface NatsJetStreamOptions extends ScheduledTransportOptions {
  /** Server address(es) (default NATS_URL, else 127.0.0.1:4222); ignored when `connection` is given. */
  servers?: string | string[];
  /** A connection to use (and not to close). */
  connection?: NatsConnection;
  stream: string;
  /** The stream's subjects when it has to be created (default `<stream>.>`); an existing stream is left as it is. */
  subjects?: string[];
  /** The durable pull consumer every process of the worker shares. */
  durable: string;
  filterSubject?: string;
  /** AckWait of a consumer created here (default 30 s); held messages get an in-progress ack every third of it. */
  ackWaitMs?: number;
  /** MaxDeliver of a consumer created here (default twice the runtime's maxDeliveries); must be above maxDeliveries. */
  maxDeliver?: number;
  /** MaxAckPending of a consumer created here: unacknowledged messages over all of its processes (default 1000). */
  maxAckPending?: number;
  /** Messages asked for per pull. */
  batchSize?: number;
  /** Messages held in this process (running, waiting, queued behind their key) before pulling pauses. */
  maxInMemory?: number;
  /** How long one pull request waits for messages (at least 1000 ms). */
  expiresMs?: number;
}

/** The durable consumer is set up in a way the runtime cannot work with: reconnecting will not help. */
export class ConsumerConfigurationError extends Error {
  override readonly name = "ConsumerConfigurationError";
}

/**
 * NATS JetStream through a durable pull consumer with explicit acks. A message is acked only after
 * the runtime committed its outcome; a retry goes back with a delayed NAK (the broker offers it
 * again after the kind's delay, to any process of the worker), while a wait stays here. Every held
 * message, the one whose slow provider call is running included, gets an in-progress ack
 * (`working()`) every third of AckWait, so the broker does not hand it to another process. The
 * delivery count of the message info, the same count the consumer's MaxDeliver stops at, is the
 * one the runtime's `maxDeliveries` judges; MaxDeliver must stay above it, or the broker would stop
 * delivering a message before the runtime could record it. Acks travel by the message's reply
 * subject, which a reconnection does not invalidate: the client reconnects on its own.
 */
export class NatsJetStreamTransport implements Transport {
  readonly name = "nats-jetstream";
  private readonly options: NatsJetStreamOptions;
  private readonly servers: string | string[];
  private readonly batchSize: number;
  private readonly maxInMemory: number;
  private readonly concurrency: number;
  private readonly expiresMs: number;
  private readonly consumerName: string;
  private readonly ownLogger: TransportLogger | undefined;
  private log: TransportLogger;

  constructor(options: NatsJetStreamOptions) {
    this.options = options;
    this.servers = options.servers ?? natsUrl();
    this.batchSize = options.batchSize ?? 20;
    this.maxInMemory = options.maxInMemory ?? 200;
    ({ concurrency: this.concurrency, consumerName: this.consumerName } = scheduledTransportDefaults(options));
    this.expiresMs = Math.max(1000, options.expiresMs ?? 1000);
    this.ownLogger = options.logger;
    this.log = transportLogger(options.logger);
  }

  async run(
    handle: (message: IncomingMessage) => Promise<Disposition>,
    signal: AbortSignal,
    context?: TransportContext,
  ): Promise<void> {
    this.log = transportLogger(this.ownLogger, context);
    const nc = this.options.connection ?? (await this.connect(signal));
    if (!nc) return;
    const { stream, durable } = this.options;
    const source = `${stream} (consumer ${durable})`;
    const known = new Map<number, Held<JsMsg>>();
    let scheduler: KeyScheduler<JsMsg> | null = null;
    let keepAlive: NodeJS.Timeout | undefined;
    let advisories: Subscription | undefined;
    let durableConsumer: Consumer | null = null;
    const untrack = context?.metrics?.trackPending(this.name, {
      held: () => scheduler?.size ?? 0,
      // Messages the durable consumer has not delivered to any process yet (its num_pending).
      backlog: async () => (durableConsumer ? (await durableConsumer.info()).num_pending : null),
    });
    try {
      const ready = await this.prepare(nc, context?.maxDeliveries, signal);
      if (!ready) return;
      const { info, consumer } = ready;
      durableConsumer = consumer;
      advisories = this.watchMaxDeliveries(nc);

      const held = new KeyScheduler<JsMsg>({
        concurrency: keysAtOnce(this.concurrency, context),
        handle,
        logger: this.log,
        settle: (entry, disposition) => {
          const settled = settle(entry, disposition, held);
          if (settled === "release") known.delete(entry.ref.seq);
          return Promise.resolve(settled);
        },
      });
      scheduler = held;
      // Held messages, running or not, stay this process's: the broker redelivers only what a dead
      // (or cut off) process stopped touching.
      const ackWaitMs = millis(info.config.ack_wait ?? nanos(30_000));
      keepAlive = setInterval(
        () => {
          for (const entry of held.all()) touch(entry.ref);
        },
        Math.max(100, Math.floor(ackWaitMs / 3)),
      );

      const deliver = (m: JsMsg) => {
        const already = known.get(m.seq);
        if (already) {
          // Redelivered while held here (an in-progress ack lost while cut off): one copy, the newest reply subject.
          already.ref = m;
          if (!already.running) already.message.deliveryCount = m.info.deliveryCount;
          return;
        }
        const body = textBody(m.data);
        const { partition, sequence } = partitionOf(body, String(m.seq));
        const entry = held.add({
          ref: m,
          partition,
          sequence,
          message: {
            body,
            deliveryCount: m.info.deliveryCount,
            receivedAt: Date.now(),
            source: { transport: this.name, queue: source, consumer: this.consumerName, transportId: String(m.seq) },
          },
        });
        known.set(m.seq, entry);
      };

      let failures = 0;
      while (!signal.aborted) {
        const room = this.maxInMemory - held.size;
        if (room <= 0) {
          await sleep(25, signal);
          continue;
        }
        try {
          const batch = await consumer.fetch({ max_messages: Math.min(this.batchSize, room), expires: this.expiresMs });
          const stop = () => batch.stop();
          signal.addEventListener("abort", stop, { once: true });
          try {
            for await (const m of batch) deliver(m);
          } finally {
            signal.removeEventListener("abort", stop);
          }
          failures = 0;
        } catch (error) {
          if (signal.aborted) break;
          failures++;
          this.log.warn({ err: error, failures }, "JetStream pull failed; pulling again");
          await sleep(Math.min(100 * 2 ** failures, 2000), signal);
        }
      }
    } finally {
      clearInterval(keepAlive);
      if (scheduler) {
        await scheduler.stop();
        // Offered again at once to the worker's other processes, rather than after AckWait.
        for (const entry of scheduler.takeRest()) nakQuietly(entry.ref);
      }
      advisories?.unsubscribe();
      untrack?.();
      if (!this.options.connection) await closeQuietly(nc);
    }
  }

  /** Connects, trying again until it works or `signal` aborts; the client reconnects by itself after that. */
  private async connect(signal: AbortSignal): Promise<NatsConnection | null> {
    for (let failures = 0; !signal.aborted; failures++) {
      try {
        return await connectNats(this.servers, `review-console consumer ${this.consumerName}`);
      } catch (error) {
        this.log.warn({ err: error, failures }, "NATS not reachable; trying again");
        await sleep(Math.min(200 * 2 ** failures, 5000), signal);
      }
    }
    return null;
  }

  /**
   * The stream, the durable consumer and its handle; tried again until it works, so a connection
   * lost while a worker starts is waited out. A configuration the runtime cannot work with, or
   * an error the server answered, ends `run`.
   */
  private async prepare(
    nc: NatsConnection,
    maxDeliveries: number | undefined,
    signal: AbortSignal,
  ): Promise<{ info: ConsumerInfo; consumer: Consumer } | null> {
    const { stream } = this.options;
    for (let failures = 1; !signal.aborted; failures++) {
      try {
        const jsm = await jetstreamManager(nc);
        await ensureStream(jsm, stream, this.options.subjects);
        const info = await this.ensureConsumer(jsm, maxDeliveries);
        return { info, consumer: await jetstream(nc).consumers.get(stream, info.name) };
      } catch (error) {
        if (error instanceof ConsumerConfigurationError || error instanceof JetStreamApiError) throw error;
        this.log.warn({ err: error, failures }, "JetStream not ready; trying again");
        await sleep(Math.min(200 * 2 ** failures, 5000), signal);
      }
    }
    return null;
  }

  private async ensureConsumer(jsm: JetStreamManager, maxDeliveries: number | undefined): Promise<ConsumerInfo> {
    const { stream, durable } = this.options;
    const limit = maxDeliveries ?? 10;
    let info: ConsumerInfo;
    try {
      info = await jsm.consumers.info(stream, durable);
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
      const config = {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
        max_deliver: this.options.maxDeliver ?? Math.max(2 * limit, limit + 1),
        max_ack_pending: this.options.maxAckPending ?? 1000,
        ...(this.options.filterSubject ? { filter_subject: this.options.filterSubject } : {}),
      };
      // A second process creating it at the same moment with the same configuration is fine.
      info = await jsm.consumers.add(stream, config).catch(() => jsm.consumers.info(stream, durable));
    }
    if (info.config.ack_policy !== AckPolicy.Explicit) {
      throw new ConsumerConfigurationError(
        `JetStream consumer ${durable} of ${stream} must use explicit acks (has ${info.config.ack_policy})`,
      );
    }
    const maxDeliver = info.config.max_deliver ?? -1;
    if (maxDeliver > 0 && maxDeliver <= limit) {
      throw new ConsumerConfigurationError(
        `JetStream consumer ${durable} has MaxDeliver ${maxDeliver}, not above the consumer's maxDeliveries ${limit}: ` +
          `the broker would stop delivering a message before the runtime records it as delivery-limit`,
      );
    }
    return info;
  }

  /** The broker gave up on a message (MaxDeliver): it has no outcome here, so say so loudly. */
  private watchMaxDeliveries(nc: NatsConnection): Subscription {
    const { stream, durable } = this.options;
    return nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${durable}`, {
      callback: (_err, msg) => {
        let details: unknown = null;
        try {
          details = msg.json();
        } catch {
          // an advisory that is not JSON: the subject says enough
        }
        this.log.error(
          { advisory: details },
          "JetStream stopped delivering a message at MaxDeliver: it has no outcome; publish it again or replay it",
        );
      },
    });
  }
}

/** Acks after the commit; a retry goes back to the broker for its delay, holding its key here meanwhile. */
function settle(held: Held<JsMsg>, disposition: Disposition, scheduler: KeyScheduler<JsMsg>): Settled {
  if (disposition.ack) {
    held.ref.ack();
    return "release";
  }
  if (disposition.cause === "retry") {
    held.ref.nak(disposition.retryInMs);
    // The key's later messages held here wait until it is back (a retried predecessor is not a gap).
    scheduler.holdPartition(held.partition, Date.now() + disposition.retryInMs, held.sequence);
    return "release";
  }
  // A wait or an unavailable database: not the message's fault, so the delivery count stays.
  return "keep";
}

/** Creates `stream` (subjects `<stream>.>` unless given) unless it exists; an existing stream is left as it is. */
export async function ensureStream(jsm: JetStreamManager, stream: string, subjects?: string[]): Promise<void> {
  try {
    await jsm.streams.info(stream);
  } catch (error) {
    if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
    await jsm.streams.add({ name: stream, subjects: subjects ?? [`${stream}.>`] }).catch(async (e: unknown) => {
      // Another process created it meanwhile.
      await jsm.streams.info(stream).catch(() => Promise.reject(e));
    });
  }
}

function touch(m: JsMsg): void {
  try {
    m.working();
  } catch {
    // closed connection: the broker will redeliver, which the runtime handles
  }
}

function nakQuietly(m: JsMsg): void {
  try {
    m.nak();
  } catch {
    // as above
  }
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

/** A connection that reconnects for ever (every 250 ms), pings every 10 s, and gives up a first connect after 2 s. */
export function connectNats(servers: string | string[] = natsUrl(), name?: string): Promise<NatsConnection> {
  return connect({
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 10_000,
    maxPingOut: 2,
    timeout: 2000,
  });
}

/** True when NATS answers with JetStream enabled within a second; never retries. */
export async function natsReachable(servers: string | string[] = natsUrl()): Promise<boolean> {
  let nc: NatsConnection | null = null;
  try {
    nc = await connect({ servers, timeout: 1000, maxReconnectAttempts: 0 });
    const jsm = await jetstreamManager(nc, { timeout: 1000 });
    await jsm.getAccountInfo();
    return true;
  } catch {
    return false;
  } finally {
    if (nc) await closeQuietly(nc);
  }
}

/**
 * Publishes one envelope (an object, as JSON, or text as it is) to `subject` and resolves once the
 * stream stored it; returns its stream sequence: the review record's `source.transportId`.
 */
export async function publish(js: JetStreamClient, subject: string, envelope: unknown): Promise<string> {
  const text = typeof envelope === "string" ? envelope : JSON.stringify(envelope);
  const ack = await js.publish(subject, text);
  return String(ack.seq);
}

async function closeQuietly(nc: NatsConnection): Promise<void> {
  // Flushes what is buffered (acks), but never waits long for a server that is away.
  await Promise.race([nc.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
}
