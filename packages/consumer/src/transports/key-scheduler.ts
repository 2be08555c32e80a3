import { hostname } from "node:os";
import { readEnvelopeKeys } from "@review-console/contract";
import type { Disposition, IncomingMessage, MessageBody, TransportContext, TransportLogger } from "../types.ts";

// The in-process half of a transport that has no per-key ordering of its own (RabbitMQ, NATS
// JetStream): the messages a worker holds unacknowledged, one sequenceKey's run one at a time in
// sequence order, `concurrency` keys side by side, and those the runtime answered with a wait or
// a retry offered again after their delay without blocking the others. What happens at the broker
// (ack, NAK, nothing) is the transport's `settle`.

export interface Held<R> {
  /** The transport's handle on this delivery: what it acks with. */
  ref: R;
  /** `key:<sequenceKey>`, or a partition of its own for a message without keys. */
  partition: string;
  /** The envelope's sequence: a key's messages held here run in this order. */
  sequence: number;
  message: IncomingMessage;
  /** Not started before this time (ms since the epoch). */
  dueAt: number;
  running: boolean;
}

/** After the runtime answered: gone from this worker (acked, handed back, or its channel is gone), or kept for `dueAt`. */
export type Settled = "release" | "keep";

export interface KeySchedulerOptions<R> {
  concurrency: number;
  handle: (message: IncomingMessage) => Promise<Disposition>;
  /** Acts on the broker; runs once per answer, never for two messages of one key at once. */
  settle: (held: Held<R>, disposition: Disposition) => Promise<Settled>;
  logger: TransportLogger;
}

/** The options a transport built on this scheduler (RabbitMQ, NATS JetStream) takes alike. */
export interface ScheduledTransportOptions {
  /** sequenceKeys worked on at once; one key's messages always run one at a time, in sequence order. */
  concurrency?: number;
  /** This process, in review records' `source.consumer` and as the connection's name. */
  consumerName?: string;
  /** The transport's own logger; without one it logs with the runtime's. */
  logger?: TransportLogger;
}

/** Those options' defaults: 4 keys at once, `<host>-<pid>`. */
export function scheduledTransportDefaults(options: ScheduledTransportOptions): {
  concurrency: number;
  consumerName: string;
} {
  return {
    concurrency: options.concurrency ?? 4,
    consumerName: options.consumerName ?? `${hostname()}-${process.pid}`,
  };
}

/** Keys worked on at once: `concurrency` batches' worth when the runtime batches (TransportContext.batchMessages). */
export function keysAtOnce(concurrency: number, context?: TransportContext): number {
  return concurrency * Math.max(1, context?.batchMessages ?? 1);
}

const silent: TransportLogger = { info() {}, warn() {}, error() {} };

/** The transport's own logger, else the runtime's (once `run` has its context), else silence. */
export function transportLogger(own: TransportLogger | undefined, context?: TransportContext): TransportLogger {
  return own ?? context?.logger ?? silent;
}

/**
 * Queues `entry` in its partition: in sequence order, arrival order among equals; never ahead of
 * a head that is running (`headRunning`). A late predecessor thus overtakes its successor when
 * that one waits for it.
 */
export function enqueueInSequence<E extends { partition: string; sequence: number }>(
  partitions: Map<string, E[]>,
  entry: E,
  headRunning: boolean,
): void {
  const queue = partitions.get(entry.partition);
  if (!queue) {
    partitions.set(entry.partition, [entry]);
    return;
  }
  const from = headRunning ? 1 : 0;
  let at = queue.findIndex((e, i) => i >= from && e.sequence > entry.sequence);
  if (at < 0) at = queue.length;
  queue.splice(at, 0, entry);
}

/** The body of a message as bytes: parsed JSON with its exact text, or the text and why it is not JSON. */
export function textBody(bytes: Uint8Array): MessageBody {
  const text = new TextDecoder("utf-8").decode(bytes);
  try {
    return { parsed: true, value: JSON.parse(text) as unknown, text };
  } catch (error) {
    return { parsed: false, text, problem: `the message body is not JSON: ${(error as Error).message}` };
  }
}

/** Where a message is queued: behind its sequenceKey's other messages, or alone. */
export function partitionOf(body: MessageBody, fallback: string): { partition: string; sequence: number } {
  const keys = body.parsed ? readEnvelopeKeys(body.value) : null;
  return {
    partition: keys?.sequenceKey ? `key:${keys.sequenceKey}` : `delivery:${fallback}`,
    sequence: keys?.sequence ?? Number.MAX_SAFE_INTEGER,
  };
}

export class KeyScheduler<R> {
  private readonly partitions = new Map<string, Held<R>[]>();
  /** Partitions whose head is running. */
  private readonly running = new Set<string>();
  /** A message handed back to the broker for a delay: its key's later messages here wait for it. */
  private readonly barriers = new Map<string, { until: number; sequence: number }>();
  private count = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private idle: (() => void) | null = null;

  constructor(private readonly options: KeySchedulerOptions<R>) {}

  /** Messages held (running, waiting for their turn or for their delay). */
  get size(): number {
    return this.count;
  }

  add(held: Omit<Held<R>, "running" | "dueAt"> & { dueAt?: number }): Held<R> {
    const entry: Held<R> = { ...held, dueAt: held.dueAt ?? 0, running: false };
    const barrier = this.barriers.get(entry.partition);
    // The message the barrier waits for (or an earlier one) is back: no reason to hold the key.
    if (barrier && entry.sequence <= barrier.sequence) this.barriers.delete(entry.partition);
    enqueueInSequence(this.partitions, entry, this.running.has(entry.partition));
    this.count++;
    this.pump();
    return entry;
  }

  /** Every message held, running or not (to keep them alive at the broker). */
  *all(): Iterable<Held<R>> {
    for (const queue of this.partitions.values()) yield* queue;
  }

  /**
   * Forgets the messages that are not running and match (their delivery is void: the broker has
   * them back); a running one is settled when it finishes. Returns the ones forgotten.
   */
  drop(predicate: (held: Held<R>) => boolean): Held<R>[] {
    const dropped: Held<R>[] = [];
    for (const [partition, queue] of this.partitions) {
      const kept = queue.filter((h) => h.running || !predicate(h));
      if (kept.length === queue.length) continue;
      dropped.push(...queue.filter((h) => !kept.includes(h)));
      if (kept.length === 0) this.partitions.delete(partition);
      else this.partitions.set(partition, kept);
    }
    this.count -= dropped.length;
    this.pump();
    return dropped;
  }

  /** Later messages of `partition` held here do not start before `until` (or before `sequence` is back). */
  holdPartition(partition: string, until: number, sequence: number): void {
    const now = Date.now();
    // Barriers whose message went to another process are never cleared by its return here.
    for (const [p, barrier] of this.barriers) if (barrier.until <= now) this.barriers.delete(p);
    this.barriers.set(partition, { until, sequence });
    this.pump();
  }

  /** Starts nothing more; resolves once the running messages are settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running.size === 0) return;
    await new Promise<void>((resolve) => {
      this.idle = () => {
        if (this.running.size > 0) return;
        this.idle = null;
        resolve();
      };
    });
  }

  /** Empties the scheduler after `stop`, returning what was still held. */
  takeRest(): Held<R>[] {
    const rest = [...this.all()];
    this.partitions.clear();
    this.barriers.clear();
    this.count = 0;
    return rest;
  }

  /** Starts the due head of each idle partition, up to `concurrency`; schedules the next wake-up. */
  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.stopped) return;
    const now = Date.now();
    let nextDue = Infinity;
    for (const [partition, queue] of this.partitions) {
      if (this.running.size >= this.options.concurrency) break;
      if (this.running.has(partition)) continue;
      const head = queue[0]!;
      const barrier = this.barriers.get(partition);
      if (barrier && barrier.until <= now) this.barriers.delete(partition);
      const due = Math.max(head.dueAt, barrier && barrier.until > now ? barrier.until : 0);
      if (due > now) {
        nextDue = Math.min(nextDue, due);
        continue;
      }
      this.running.add(partition);
      head.running = true;
      void this.runHead(partition, head).finally(() => {
        head.running = false;
        this.running.delete(partition);
        if (this.running.size === 0) this.idle?.();
        this.pump();
      });
    }
    if (nextDue !== Infinity) this.timer = setTimeout(() => this.pump(), Math.max(1, nextDue - now));
  }

  private async runHead(partition: string, held: Held<R>): Promise<void> {
    let disposition: Disposition;
    try {
      disposition = await this.options.handle(held.message);
    } catch (err) {
      this.options.logger.error({ err, transportId: held.message.source.transportId }, "message handler failed");
      disposition = { ack: false, retryInMs: 1000, cause: "unavailable" };
    }
    let settled: Settled;
    try {
      settled = await this.options.settle(held, disposition);
    } catch (err) {
      // The broker gets it back with its channel or connection; the next delivery decides again.
      this.options.logger.warn({ err, transportId: held.message.source.transportId }, "settling a message failed");
      settled = "release";
    }
    const queue = this.partitions.get(partition);
    if (settled === "keep" && !disposition.ack && queue?.includes(held)) {
      held.dueAt = Date.now() + disposition.retryInMs;
      // A predecessor that arrived while this one ran goes first (sort is stable).
      queue.sort((a, b) => a.sequence - b.sequence);
      return;
    }
    const at = queue?.indexOf(held) ?? -1;
    if (at < 0) return;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.partitions.delete(partition);
    this.count--;
  }
}
