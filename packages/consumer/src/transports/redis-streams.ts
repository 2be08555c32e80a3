import { createClient } from "redis";
import { readEnvelopeKeys } from "@review-console/contract";
import { jsonLogger, type ConsumerLogger } from "../logger.ts";
import type { Disposition, IncomingMessage, MessageBody, Transport, TransportContext } from "../types.ts";
import { enqueueInSequence, keysAtOnce } from "./key-scheduler.ts";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** A client as `createClient({ url })` makes it (RESP3, no modules). */
export function createRedisClient(url = process.env.REDIS_URL ?? DEFAULT_REDIS_URL) {
  return createClient({ url });
}
export type RedisClient = ReturnType<typeof createRedisClient>;

export interface RedisStreamsOptions {
  /** A connection URL (default REDIS_URL, else redis://127.0.0.1:6379); ignored when `client` is given. */
  url?: string;
  /** A connected client to use (and not to close); a second connection is made for blocking reads. */
  client?: RedisClient;
  stream: string;
  group: string;
  /** This process's name in the group; reuse it after a restart to take up its own pending entries first. */
  consumer: string;
  /** The entry field that holds the envelope as JSON text. */
  field?: string;
  /** Entries read per XREADGROUP / XAUTOCLAIM. */
  batchSize?: number;
  blockMs?: number;
  /** Pending entries idle longer than this belong to a dead consumer and are taken over (XAUTOCLAIM). */
  claimIdleMs?: number;
  claimEveryMs?: number;
  /** sequenceKeys worked on at once; one key's entries always run one at a time, in stream order. */
  concurrency?: number;
  /** Entries held in memory (running, waiting, queued behind their key) before reading pauses. */
  maxInMemory?: number;
  logger?: ConsumerLogger;
}

interface Entry {
  id: string;
  partition: string;
  /** The envelope's sequence: a key's entries held here run in this order. */
  sequence: number;
  message: IncomingMessage;
  dueAt: number;
}

type StreamMessage = { id: string; message: Record<string, string> | null };

/** The body of an entry: its `field` parsed as JSON, or its text (or all its fields) when that fails. */
export function entryBody(fields: Record<string, string>, field: string): MessageBody {
  const text = Object.hasOwn(fields, field) ? fields[field] : undefined;
  if (text === undefined) {
    return { parsed: false, text: JSON.stringify(fields), problem: `the stream entry has no "${field}" field` };
  }
  try {
    return { parsed: true, value: JSON.parse(text) as unknown, text };
  } catch (error) {
    return { parsed: false, text, problem: `the "${field}" field is not JSON: ${(error as Error).message}` };
  }
}

/** Adds one envelope (an object, sent as JSON, or text sent as it is) to a stream. */
export async function publish(client: RedisClient, stream: string, envelope: unknown, field = "envelope") {
  const text = typeof envelope === "string" ? envelope : JSON.stringify(envelope);
  return client.xAdd(stream, "*", { [field]: text });
}

/**
 * Redis Streams with a consumer group. On start, this consumer's own pending entries first
 * (XREADGROUP from id 0), then new ones (`>`); pending entries of dead consumers are taken over
 * once idle past `claimIdleMs` (XAUTOCLAIM); entries held here are kept fresh (XCLAIM JUSTID,
 * which leaves the delivery count alone) so a slow live worker is not robbed. XACK only after
 * the runtime has committed the outcome. The delivery count (XPENDING) travels with each message;
 * the runtime routes a message delivered too often to review instead of looping on it.
 */
export class RedisStreamsTransport implements Transport {
  readonly name = "redis-streams";
  private readonly options: Required<Omit<RedisStreamsOptions, "client" | "url" | "logger">>;
  private readonly url: string;
  private readonly log: ConsumerLogger;
  private client: RedisClient | null;
  private ownsClient: boolean;

  private readonly partitions = new Map<string, Entry[]>();
  private readonly known = new Set<string>();
  private readonly running = new Set<string>();
  private handle: ((message: IncomingMessage) => Promise<Disposition>) | null = null;
  /** Keys run at once: `concurrency`, times the runtime's batch size when it batches. */
  private keysAtOnce = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private idle: (() => void) | null = null;

  constructor(options: RedisStreamsOptions) {
    const claimIdleMs = options.claimIdleMs ?? 60_000;
    this.options = {
      stream: options.stream,
      group: options.group,
      consumer: options.consumer,
      field: options.field ?? "envelope",
      batchSize: options.batchSize ?? 20,
      blockMs: options.blockMs ?? 1000,
      claimIdleMs,
      claimEveryMs: options.claimEveryMs ?? Math.max(100, Math.floor(claimIdleMs / 2)),
      concurrency: options.concurrency ?? 4,
      maxInMemory: options.maxInMemory ?? 200,
    };
    this.url = options.url ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
    this.client = options.client ?? null;
    this.ownsClient = !options.client;
    this.log = (options.logger ?? jsonLogger()).child({
      transport: this.name,
      stream: options.stream,
      group: options.group,
      redisConsumer: options.consumer,
    });
  }

  async run(
    handle: (message: IncomingMessage) => Promise<Disposition>,
    signal: AbortSignal,
    context?: TransportContext,
  ): Promise<void> {
    this.handle = handle;
    this.keysAtOnce = keysAtOnce(this.options.concurrency, context);
    this.stopping = false;
    const untrack = context?.metrics?.trackPending(this.name, {
      held: () => this.known.size,
      backlog: () => this.backlog(),
    });
    try {
      await this.consume(signal);
    } finally {
      untrack?.();
    }
  }

  private async consume(signal: AbortSignal): Promise<void> {
    const client = await this.connect();
    const blocking = client.duplicate();
    blocking.on("error", (err) => this.log.warn({ err }, "redis (blocking reads)"));
    await blocking.connect();
    try {
      await this.start(client, signal);
      let nextClaim = 0;
      let nextTouch = Date.now() + this.touchEveryMs();
      while (!signal.aborted) {
        try {
          const now = Date.now();
          if (now >= nextClaim) {
            await this.autoClaim(client);
            nextClaim = Date.now() + this.options.claimEveryMs;
          }
          if (now >= nextTouch) {
            await this.touch(client);
            nextTouch = Date.now() + this.touchEveryMs();
          }
          const room = this.options.maxInMemory - this.known.size;
          if (room <= 0) {
            await wait(Math.min(50, this.options.blockMs), signal);
            continue;
          }
          const block = Math.max(1, Math.min(this.options.blockMs, nextClaim - now, nextTouch - now));
          const reply = await blocking.xReadGroup(
            this.options.group,
            this.options.consumer,
            { key: this.options.stream, id: ">" },
            { COUNT: Math.min(this.options.batchSize, room), BLOCK: block },
          );
          // First delivery: XREADGROUP `>` sets the count to 1.
          for (const m of messagesOf(reply)) this.enqueue(m, 1);
        } catch (err) {
          if (signal.aborted) break;
          this.log.error({ err }, "redis read failed; trying again");
          await wait(1000, signal);
        }
      }
    } finally {
      this.stopping = true;
      await this.drained();
      if (this.timer) clearTimeout(this.timer);
      this.partitions.clear();
      this.known.clear();
      await blocking.quit().catch(() => {});
      if (this.ownsClient) {
        await client.quit().catch(() => {});
        this.client = null;
      }
    }
  }

  /**
   * Entries the group has not delivered to any consumer yet (XINFO GROUPS `lag`, Redis 7). Not
   * XPENDING: entries pending with another live consumer are that consumer's to count.
   */
  private async backlog(): Promise<number | null> {
    const client = this.client;
    if (!client?.isReady) return null;
    const groups = await client.xInfoGroups(this.options.stream);
    const lag = groups.find((g) => String(g.name) === this.options.group)?.lag as unknown;
    // null where Redis cannot tell (entries deleted from the middle of the stream), absent before 7.0
    return typeof lag === "number" ? lag : null;
  }

  private async connect(): Promise<RedisClient> {
    if (this.client) return this.client;
    const client = createRedisClient(this.url);
    client.on("error", (err) => this.log.warn({ err }, "redis"));
    await client.connect();
    this.client = client;
    this.ownsClient = true;
    return client;
  }

  /**
   * The group, then this consumer's own pending entries; tried again until it works, so a
   * connection lost while a worker starts (a broker restart) is waited out instead of ending it.
   */
  private async start(client: RedisClient, signal: AbortSignal): Promise<void> {
    for (let failures = 1; !signal.aborted; failures++) {
      try {
        await this.ensureGroup(client);
        await this.readOwnPending(client);
        return;
      } catch (err) {
        if (signal.aborted) return;
        this.log.error({ err, failures }, "redis start failed; trying again");
        await wait(Math.min(200 * 2 ** failures, 5000), signal);
      }
    }
  }

  private touchEveryMs(): number {
    return Math.max(50, Math.floor(this.options.claimIdleMs / 3));
  }

  private async ensureGroup(client: RedisClient): Promise<void> {
    try {
      await client.xGroupCreate(this.options.stream, this.options.group, "0", { MKSTREAM: true });
    } catch (error) {
      if (!String((error as Error).message).startsWith("BUSYGROUP")) throw error;
    }
  }

  /** After a restart under the same name: what this consumer read but never acknowledged. */
  private async readOwnPending(client: RedisClient): Promise<void> {
    let cursor = "0";
    for (;;) {
      const reply = await client.xReadGroup(
        this.options.group,
        this.options.consumer,
        { key: this.options.stream, id: cursor },
        { COUNT: this.options.batchSize },
      );
      const messages = messagesOf(reply);
      if (messages.length === 0) return;
      await this.enqueueWithCounts(client, messages);
      cursor = messages[messages.length - 1]!.id;
    }
  }

  /** Takes over entries that a dead consumer read and never acknowledged. */
  private async autoClaim(client: RedisClient): Promise<void> {
    let cursor = "0-0";
    do {
      const room = this.options.maxInMemory - this.known.size;
      if (room <= 0) return;
      const reply = await client.xAutoClaim(
        this.options.stream,
        this.options.group,
        this.options.consumer,
        this.options.claimIdleMs,
        cursor,
        { COUNT: Math.min(this.options.batchSize, room) },
      );
      cursor = String(reply.nextId);
      if (reply.deletedMessages.length > 0) {
        // Trimmed from the stream before anyone finished them: nothing is left to process.
        this.log.warn({ ids: reply.deletedMessages.map(String) }, "pending entries were deleted from the stream");
      }
      const claimed = reply.messages
        .filter((m): m is NonNullable<typeof m> => m !== null && typeof m === "object")
        .map((m) => ({ id: String(m.id), message: toFields(m.message) }));
      if (claimed.length > 0) {
        this.log.info({ count: claimed.length }, "took over pending entries of another consumer");
        await this.enqueueWithCounts(client, claimed);
      }
    } while (cursor !== "0-0");
  }

  /** Resets the idle time of the entries held here, so no other consumer takes them over. */
  private async touch(client: RedisClient): Promise<void> {
    const ids = [...this.known];
    for (let i = 0; i < ids.length; i += 100) {
      await client.xClaimJustId(
        this.options.stream,
        this.options.group,
        this.options.consumer,
        0,
        ids.slice(i, i + 100),
      );
    }
  }

  private async enqueueWithCounts(client: RedisClient, messages: StreamMessage[]): Promise<void> {
    const fresh = messages.filter((m) => !this.known.has(m.id));
    if (fresh.length === 0) return;
    const pending = await client.xPendingRange(
      this.options.stream,
      this.options.group,
      fresh[0]!.id,
      fresh[fresh.length - 1]!.id,
      fresh.length * 2 + 10,
      { consumer: this.options.consumer },
    );
    const counts = new Map(pending.map((p) => [String(p.id), Number(p.deliveriesCounter)]));
    for (const m of fresh) this.enqueue(m, counts.get(m.id) ?? 1);
  }

  private enqueue(m: StreamMessage, deliveryCount: number): void {
    if (this.known.has(m.id) || this.stopping) return;
    if (m.message === null) {
      // A pending entry whose content was trimmed away: acknowledge it, there is nothing to run.
      this.log.warn({ id: m.id }, "pending entry has no content any more; acknowledged");
      void this.client?.xAck(this.options.stream, this.options.group, m.id).catch(() => {});
      return;
    }
    const body = entryBody(m.message, this.options.field);
    const keys = body.parsed ? readEnvelopeKeys(body.value) : null;
    const entry: Entry = {
      id: m.id,
      partition: keys?.sequenceKey ? `key:${keys.sequenceKey}` : `entry:${m.id}`,
      sequence: keys?.sequence ?? Number.MAX_SAFE_INTEGER,
      dueAt: 0,
      message: {
        body,
        deliveryCount,
        receivedAt: Date.now(),
        source: {
          transport: this.name,
          queue: `${this.options.stream} (group ${this.options.group})`,
          consumer: this.options.consumer,
          transportId: m.id,
        },
      },
    };
    this.known.add(m.id);
    enqueueInSequence(this.partitions, entry, this.running.has(entry.partition));
    this.pump();
  }

  /** Starts the due head of each idle partition, up to `concurrency`; schedules the next wake-up. */
  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const now = Date.now();
    let nextDue = Infinity;
    for (const [partition, queue] of this.partitions) {
      if (this.running.size >= this.keysAtOnce) break;
      if (this.running.has(partition) || this.stopping) continue;
      const head = queue[0]!;
      if (head.dueAt > now) {
        nextDue = Math.min(nextDue, head.dueAt);
        continue;
      }
      this.running.add(partition);
      void this.runHead(partition, head).finally(() => {
        this.running.delete(partition);
        if (this.running.size === 0) this.idle?.();
        this.pump();
      });
    }
    if (nextDue !== Infinity && !this.stopping) {
      this.timer = setTimeout(() => this.pump(), Math.max(1, nextDue - now));
    }
  }

  private async runHead(partition: string, entry: Entry): Promise<void> {
    let disposition: Disposition;
    try {
      disposition = await this.handle!(entry.message);
    } catch (err) {
      this.log.error({ err, id: entry.id }, "message handler failed; offered again later");
      disposition = { ack: false, retryInMs: 1000 };
    }
    if (!disposition.ack) {
      entry.dueAt = Date.now() + disposition.retryInMs;
      // A predecessor that arrived while this one ran goes first (sort is stable: arrival order among equals).
      this.partitions.get(partition)?.sort((a, b) => a.sequence - b.sequence);
      return;
    }
    try {
      await this.client!.xAck(this.options.stream, this.options.group, entry.id);
    } catch (err) {
      // The outcome is committed; the entry stays pending and its next delivery is suppressed.
      this.log.warn({ err, id: entry.id }, "XACK failed");
    }
    const queue = this.partitions.get(partition);
    const at = queue?.indexOf(entry) ?? -1;
    if (at >= 0) queue!.splice(at, 1);
    if (queue?.length === 0) this.partitions.delete(partition);
    this.known.delete(entry.id);
  }

  private drained(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.idle = () => {
        if (this.running.size === 0) {
          this.idle = null;
          resolve();
        }
      };
    });
  }
}

function toFields(message: unknown): Record<string, string> | null {
  if (message === null || message === undefined) return null;
  if (message instanceof Map) return Object.fromEntries([...message].map(([k, v]) => [String(k), String(v)]));
  if (Array.isArray(message)) {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < message.length; i += 2) fields[String(message[i])] = String(message[i + 1]);
    return fields;
  }
  if (typeof message === "object") {
    return Object.fromEntries(Object.entries(message as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  }
  return null;
}

/** The entries of an XREADGROUP reply, in any of the shapes the client's RESP modes give. */
function messagesOf(reply: unknown): StreamMessage[] {
  if (!Array.isArray(reply)) return [];
  const out: StreamMessage[] = [];
  for (const stream of reply as { messages?: unknown[] }[]) {
    for (const m of stream?.messages ?? []) {
      const item = m as { id: unknown; message: unknown };
      out.push({ id: String(item.id), message: toFields(item.message) });
    }
  }
  return out;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
