import { randomUUID } from "node:crypto";
import { connect, type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from "amqplib";
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

export const DEFAULT_RABBITMQ_URL = "amqp://guest:guest@127.0.0.1:5672";
export const rabbitmqUrl = () => process.env.RABBITMQ_URL ?? DEFAULT_RABBITMQ_URL;

export interface RabbitMqOptions extends ScheduledTransportOptions {
  /** An AMQP URL (default RABBITMQ_URL, else amqp://guest:guest@127.0.0.1:5672). */
  url?: string;
  queue: string;
  /** Declares the queue, durable and `x-queue-type: quorum`, unless it exists (default true); false: it must exist. */
  declare?: boolean;
  /** More x-arguments for the declaration, e.g. `x-delivery-limit` (which must be above `maxDeliveries`). */
  queueArguments?: Record<string, unknown>;
  /** Unacknowledged messages this process holds at most (basic.qos), waiting and retrying ones included. */
  prefetch?: number;
  /** AMQP heartbeat: a connection silent this long (twice) is taken for dead. */
  heartbeatSeconds?: number;
  /** The longest pause between two reconnection attempts. */
  maxReconnectDelayMs?: number;
}

/** One connection and its channel. A delivery tag means something on its own channel only. */
interface Session {
  id: number;
  model: ChannelModel;
  channel: Channel;
  consumerTag: string | null;
  /** False from the moment the channel or the connection closes: its deliveries are void then. */
  open: boolean;
  /** Resolves when the channel or the connection has closed, with the error that closed it. */
  closed: Promise<Error | undefined>;
  /** A channel of its own for reading the queue's backlog, opened at the first sample. */
  probe?: Promise<Channel>;
}

interface Delivery {
  session: Session;
  raw: ConsumeMessage;
}

/** Broker answers that reconnecting does not change: the queue's arguments differ, access refused, no such queue. */
const FATAL_CODES = new Set([403, 404, 406]);

/**
 * RabbitMQ (AMQP 0-9-1, amqplib) on a quorum queue. Manual acknowledgement, sent only after the
 * runtime has committed the outcome, on the channel the message came from: after a connection or
 * channel is lost, the messages it delivered are void here (the broker requeues them and delivers
 * them again, `x-delivery-count` raised), and an ack is never carried over to a new channel, where
 * the same delivery tag names another message. `x-delivery-count` + 1 is the delivery count the
 * runtime's `maxDeliveries` judges. A wait or a retry stays unacknowledged in this process and runs
 * again after its delay, while the channel goes on delivering up to `prefetch` (ADR 0013).
 */
export class RabbitMqTransport implements Transport {
  readonly name = "rabbitmq";
  private readonly url: string;
  private readonly queue: string;
  private readonly declare: boolean;
  private readonly queueArguments: Record<string, unknown>;
  private readonly prefetch: number;
  private readonly concurrency: number;
  private readonly consumerName: string;
  private readonly heartbeatSeconds: number;
  private readonly maxReconnectDelayMs: number;
  private readonly ownLogger: TransportLogger | undefined;
  private log: TransportLogger;
  private sessions = 0;

  constructor(options: RabbitMqOptions) {
    this.url = options.url ?? rabbitmqUrl();
    this.queue = options.queue;
    this.declare = options.declare ?? true;
    this.queueArguments = { "x-queue-type": "quorum", ...(options.queueArguments ?? {}) };
    this.prefetch = options.prefetch ?? 100;
    ({ concurrency: this.concurrency, consumerName: this.consumerName } = scheduledTransportDefaults(options));
    this.heartbeatSeconds = options.heartbeatSeconds ?? 10;
    this.maxReconnectDelayMs = options.maxReconnectDelayMs ?? 5000;
    this.ownLogger = options.logger;
    this.log = transportLogger(options.logger);
    if (this.prefetch < this.concurrency) throw new Error("prefetch must be at least concurrency");
  }

  async run(
    handle: (message: IncomingMessage) => Promise<Disposition>,
    signal: AbortSignal,
    context?: TransportContext,
  ): Promise<void> {
    this.log = transportLogger(this.ownLogger, context);
    if (context) checkDeliveryLimit(this.queueArguments["x-delivery-limit"], context.maxDeliveries);
    const scheduler = new KeyScheduler<Delivery>({
      concurrency: keysAtOnce(this.concurrency, context),
      handle,
      settle: (held, disposition) => settle(held, disposition),
      logger: this.log,
    });
    let failures = 0;
    let session: Session | null = null;
    const stopped = aborted(signal);
    const untrack = context?.metrics?.trackPending(this.name, {
      held: () => scheduler.size,
      backlog: () => (session?.open ? readyMessages(session, this.queue) : Promise.resolve(null)),
    });
    try {
      while (!signal.aborted) {
        try {
          session = await this.open(scheduler);
          failures = 0;
          const lost = await Promise.race([session.closed, stopped]);
          if (signal.aborted) break;
          this.log.warn({ err: lost, session: session.id }, "RabbitMQ connection lost; reconnecting");
        } catch (error) {
          if (signal.aborted) break;
          if (FATAL_CODES.has((error as { code?: number }).code ?? 0)) throw error;
          failures++;
          this.log.warn({ err: error, failures }, "RabbitMQ not reachable; trying again");
        }
        if (session) {
          const dead = session;
          dead.open = false;
          // Held but not running: the broker has them back and will deliver them again.
          scheduler.drop((held) => held.ref.session === dead);
          await dead.model.close().catch(() => {});
          session = null;
        }
        await sleep(failures === 0 ? 100 : Math.min(200 * 2 ** failures, this.maxReconnectDelayMs), signal);
      }
    } finally {
      // No new deliveries; the running messages finish and are acked on their live channel; the
      // rest goes back to the queue when the channel closes.
      if (session?.open && session.consumerTag) await session.channel.cancel(session.consumerTag).catch(() => {});
      await scheduler.stop();
      scheduler.takeRest();
      if (session) {
        session.open = false;
        await session.model.close().catch(() => {});
      }
      untrack?.();
    }
  }

  private async open(scheduler: KeyScheduler<Delivery>): Promise<Session> {
    const model = await connect(withHeartbeat(this.url, this.heartbeatSeconds), {
      timeout: 5000,
      clientProperties: { connection_name: `review-console consumer ${this.consumerName}` },
    });
    let reason: Error | undefined;
    let markClosed!: () => void;
    const closed = new Promise<Error | undefined>((resolve) => {
      markClosed = () => {
        session.open = false;
        resolve(reason);
      };
    });
    const session: Session = { id: ++this.sessions, model, channel: null!, consumerTag: null, open: true, closed };
    // Without an 'error' listener an error event would end the process.
    model.on("error", (err: Error) => (reason ??= err));
    model.on("close", () => markClosed());
    try {
      const channel = await model.createChannel();
      session.channel = channel;
      channel.on("error", (err: Error) => (reason ??= err));
      channel.on("close", () => markClosed());
      await channel.prefetch(this.prefetch);
      if (this.declare) await declareQueue(channel, this.queue, this.queueArguments);
      else await channel.checkQueue(this.queue);
      const { consumerTag } = await channel.consume(this.queue, (raw) => this.deliver(session, raw, scheduler), {
        noAck: false,
      });
      session.consumerTag = consumerTag;
      this.log.info({ session: session.id, queue: this.queue }, "consuming from RabbitMQ");
      return session;
    } catch (error) {
      session.open = false;
      await model.close().catch(() => {});
      throw reason && (error as { code?: number }).code === undefined ? reason : error;
    }
  }

  private deliver(session: Session, raw: ConsumeMessage | null, scheduler: KeyScheduler<Delivery>): void {
    if (raw === null) {
      // The broker cancelled the consumer (the queue was deleted, or its leader moved): start over.
      this.log.warn({ session: session.id }, "RabbitMQ cancelled the consumer; reconnecting");
      void session.model.close().catch(() => {});
      return;
    }
    // A delivery that raced the channel's closing: the broker has it back already.
    if (!session.open) return;
    const body = textBody(raw.content);
    const tag = `${session.id}.${raw.fields.deliveryTag}`;
    const { partition, sequence } = partitionOf(body, tag);
    scheduler.add({
      ref: { session, raw },
      partition,
      sequence,
      message: {
        body,
        deliveryCount: deliveryCount(raw),
        receivedAt: Date.now(),
        source: {
          transport: this.name,
          queue: this.queue,
          consumer: this.consumerName,
          transportId: typeof raw.properties.messageId === "string" ? raw.properties.messageId : `delivery ${tag}`,
        },
      },
    });
  }
}

/** Acks on the delivery's own channel, and only while that channel lives; a wait or a retry stays here. */
function settle(held: Held<Delivery>, disposition: Disposition): Promise<Settled> {
  const { session, raw } = held.ref;
  // The channel is gone and with it the delivery tag: the broker delivers the message again, and
  // the runtime suppresses what it already committed.
  if (!session.open) return Promise.resolve("release");
  if (!disposition.ack) return Promise.resolve("keep");
  session.channel.ack(raw);
  return Promise.resolve("release");
}

/**
 * The queue's ready messages (delivered to no consumer yet), read on a channel of its own: a
 * failing check (the queue deleted: 404) closes that channel only, never the one consuming.
 */
async function readyMessages(session: Session, queue: string): Promise<number> {
  session.probe ??= openProbe(session);
  const channel = await session.probe;
  return (await channel.checkQueue(queue)).messageCount;
}

function openProbe(session: Session): Promise<Channel> {
  const forget = () => {
    if (session.probe === probe) session.probe = undefined;
  };
  const probe = session.model.createChannel().then((channel) => {
    // Without an 'error' listener a channel error would end the process.
    channel.on("error", () => {});
    channel.on("close", forget);
    return channel;
  });
  probe.catch(forget);
  return probe;
}

/**
 * How often the message has been handed out, this time included: quorum queues count the returns
 * (a nack with requeue, a channel or connection that closed with it unacked) in `x-delivery-count`;
 * a classic queue only says `redelivered`.
 */
export function deliveryCount(raw: Pick<ConsumeMessage, "fields" | "properties">): number {
  const header = Number(raw.properties.headers?.["x-delivery-count"]);
  const returned = Number.isSafeInteger(header) && header >= 0 ? header : raw.fields.redelivered ? 1 : 0;
  return returned + 1;
}

/** A broker-side delivery limit must leave the runtime its chance to record the message first. */
function checkDeliveryLimit(limit: unknown, maxDeliveries: number): void {
  if (typeof limit !== "number" || limit < 0) return;
  if (limit <= maxDeliveries) {
    throw new Error(
      `x-delivery-limit ${limit} is not above the consumer's maxDeliveries ${maxDeliveries}: RabbitMQ would drop ` +
        `(or dead-letter) a message before the runtime records it as delivery-limit`,
    );
  }
}

function withHeartbeat(url: string, seconds: number): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has("heartbeat")) parsed.searchParams.set("heartbeat", String(seconds));
  return parsed.toString();
}

/** Declares `queue` as a durable quorum queue (a no-op when it exists with the same arguments). */
export async function declareQueue(channel: Channel, queue: string, queueArguments: Record<string, unknown> = {}) {
  return channel.assertQueue(queue, { durable: true, arguments: { "x-queue-type": "quorum", ...queueArguments } });
}

/** A connection with an error listener (an unheard error event would end the process). */
export async function connectRabbitMq(url = rabbitmqUrl()): Promise<ChannelModel> {
  const model = await connect(url, { timeout: 5000 });
  model.on("error", () => {});
  return model;
}

/** True when RabbitMQ accepts a connection within a second; never retries. */
export async function rabbitmqReachable(url = rabbitmqUrl()): Promise<boolean> {
  try {
    const model = await connect(url, { timeout: 1000 });
    model.on("error", () => {});
    await model.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends one envelope (an object, as JSON, or text as it is) to `queue`, persistent, and resolves
 * once the broker confirmed it. Returns the AMQP message-id it gave the message: the review
 * record's `source.transportId`.
 */
export function publish(channel: ConfirmChannel, queue: string, envelope: unknown): Promise<string> {
  const text = typeof envelope === "string" ? envelope : JSON.stringify(envelope);
  const messageId = randomUUID();
  return new Promise((resolve, reject) => {
    channel.sendToQueue(
      queue,
      Buffer.from(text, "utf8"),
      {
        persistent: true,
        messageId,
        contentType: typeof envelope === "string" ? "text/plain" : "application/json",
      },
      (error: unknown) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(messageId),
    );
  });
}

function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}
