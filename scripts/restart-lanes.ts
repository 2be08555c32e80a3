import { sleep } from "@review-console/consumer";
import type { SentEmail } from "@/testing/worker/demo/fake-email-provider";
import { type BrokerSession, brokerFor } from "@/testing/worker/brokers";
import { reminder } from "@/testing/worker/harness";
import type { TransportName } from "@/testing/worker/transport-option";

// The parts of `npm run test:restarts` that every broker shares: a producer writing invoice
// reminders round robin over its keys (written again when the broker does not confirm), what the
// workers said and when (their outcomes and their reconnection warnings, read from their output),
// a broker restarted under them with its figures, and the per-key order of the emails sent.

/** A broker the test owns: started, stopped (and started again on the same port and data). */
export interface OwnBroker {
  readonly title: string;
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it for good, whatever state it is in (the end of the test). */
  close(): Promise<void>;
}

/** What the workers printed, and when: `OUTCOME` lines (stamped by the worker) and the transports' warnings. */
export class WorkerLog {
  /** Outcomes by `via`: the transport's name (`redis-streams`, `rabbitmq`, `nats-jetstream`) or `replay`. */
  readonly outcomes: { at: number; via: string; type: string }[] = [];
  /** A transport's "not reachable / lost / pull failed" warnings: each one attempt to get the broker back. */
  readonly reconnects: { at: number; via: string }[] = [];

  read(via: string | null, text: string): void {
    if (text.startsWith("OUTCOME ")) {
      const { via: from, type, at } = JSON.parse(text.slice(8)) as { via: string; type: string; at?: number };
      // The worker's own time of the outcome: this process may read its output late on a busy machine.
      this.outcomes.push({ at: at ?? Date.now(), via: from, type });
      return;
    }
    if (via && RECONNECT_WARNINGS.some((w) => text.includes(w))) this.reconnects.push({ at: Date.now(), via });
  }

  /** Outcomes of `via` (any when null) in [from, to). */
  between(via: string | null, from: number, to = Infinity, types?: string[]): number {
    return this.outcomes.filter(
      (o) => (via === null || o.via === via) && o.at >= from && o.at < to && (!types || types.includes(o.type)),
    ).length;
  }

  reconnectsBetween(via: string, from: number, to: number): number {
    return this.reconnects.filter((r) => r.via === via && r.at >= from && r.at < to).length;
  }
}

/** The transports' warnings of a broker that went away (packages/consumer/src/transports). */
const RECONNECT_WARNINGS = [
  "RabbitMQ connection lost; reconnecting",
  "RabbitMQ not reachable; trying again",
  "RabbitMQ cancelled the consumer",
  "JetStream pull failed; pulling again",
  "JetStream not ready; trying again",
  "NATS not reachable; trying again",
];

/**
 * Publishes reminders of `keys` keys (`<prefix>-k<n>`), one sequence of every key after another,
 * `perSecond` paced by the clock, until `stop()`. A write the broker does not confirm is written
 * again (a duplicate at worst, which the contract suppresses).
 */
export class Producer {
  readonly envelopes: Record<string, unknown>[] = [];
  retries = 0;
  private stopped = false;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly prefix: string,
    private readonly keys: number,
    private readonly perSecond: number,
    private readonly publish: (envelope: Record<string, unknown>) => Promise<unknown>,
  ) {}

  start(): void {
    const started = Date.now();
    this.done = (async () => {
      for (let s = 1; !this.stopped; s++) {
        for (let k = 0; k < this.keys && !this.stopped; k++) {
          const envelope = reminder(`${this.prefix}-k${k}`, s);
          for (;;) {
            try {
              await this.publish(envelope);
              break;
            } catch {
              this.retries++;
              await sleep(200);
            }
          }
          this.envelopes.push(envelope);
          // Paced by the clock, not by a sleep per message: a busy machine's timers would stretch it.
          const ahead = started + (this.envelopes.length * 1000) / this.perSecond - Date.now();
          if (ahead > 0) await sleep(ahead);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  ids(): string[] {
    return this.envelopes.map((e) => String(e.id));
  }
}

/**
 * Emails of keys starting with `prefix` sent out of sequence order within their key (the
 * provider numbers emails in creation order).
 */
export function outOfOrder(sent: SentEmail[], prefix: string): number {
  const last = new Map<string, number>();
  let violations = 0;
  for (const email of [...sent].sort((a, b) => a.order - b.order)) {
    const key = email.request.metadata?.sequenceKey;
    const sequence = email.request.metadata?.sequence;
    if (typeof key !== "string" || !key.startsWith(prefix) || typeof sequence !== "number") continue;
    if (sequence <= (last.get(key) ?? 0)) violations++;
    last.set(key, Math.max(sequence, last.get(key) ?? 0));
  }
  return violations;
}

/** Outcomes that end a message's delivery (a wait or a retry is offered again, and not counted). */
export const FINAL_OUTCOMES = ["applied", "duplicate-suppressed", "review"];

/** What one broker restart showed. */
export interface Outage {
  title: string;
  how: string;
  /** From the stop command to the broker answering again. */
  downMs: number;
  /** How long the stop itself took (a clean shutdown serves, then closes, its connections first). */
  stopMs: number;
  /**
   * Messages of it that got their final outcome while no broker process ran (from the end of the
   * stop until it was started again): only messages already in hand can. While a clean stop is
   * under way the broker still serves, and acknowledges, what its connections send; once started
   * it serves before this process sees it answer.
   */
  committedWhileDown: number;
  /** The most those may be: what the workers can hold running (RabbitMQ) or held (NATS) at once. */
  committedBound: number;
  reconnectsWhileDown: number;
  reconnectBound: number;
  /** From the start to the first outcome of a message from it again. */
  resumedMs: number;
}

/**
 * A producer and workers on a broker of the test's own, other than Redis (whose phase, with its
 * acknowledgement counts read from the stream's group, is in scripts/restart-test.ts).
 */
export class BrokerLane {
  readonly producer: Producer;
  private session: BrokerSession | null = null;

  constructor(
    readonly name: Exclude<TransportName, "redis">,
    readonly broker: OwnBroker,
    /** How it is stopped, for the report. */
    readonly how: string,
    readonly where: string,
    readonly group: string,
    readonly prefix: string,
    readonly workers: number,
    keys: number,
    perSecond: number,
  ) {
    this.producer = new Producer(prefix, keys, perSecond, (envelope) => this.publish(envelope));
  }

  /** The transport's name in outcomes (`source.transport`). */
  get via(): string {
    return this.name === "nats" ? "nats-jetstream" : "rabbitmq";
  }

  /** What the workers hold at most: RabbitMQ's running messages (the rest is dropped when its channel goes), NATS's held ones. */
  get heldBound(): number {
    return this.workers * (this.name === "rabbitmq" ? 4 : 40);
  }

  /** The worker environment that points the fleet worker at this broker. */
  workerEnv(): Record<string, string> {
    return {
      FLEET_TRANSPORT: this.name,
      FLEET_STREAM: this.where,
      FLEET_GROUP: this.group,
      [brokerFor(this.name).urlVariable]: this.broker.url,
      // The transports' reconnection warnings are what the test counts.
      LOG_LEVEL: "warn",
    };
  }

  /** Declares the queue or the stream and its durable consumer before any worker or message. */
  async open(): Promise<void> {
    this.session = await this.connect();
  }

  private connect(): Promise<BrokerSession> {
    // brokers.ts reads the URL from the environment; the test points it at its own broker.
    process.env[brokerFor(this.name).urlVariable] = this.broker.url;
    return brokerFor(this.name).open(this.where, {
      subject: "reminders",
      group: { name: this.group, ackWaitMs: 6000 },
    });
  }

  private async publish(envelope: Record<string, unknown>): Promise<void> {
    try {
      this.session ??= await this.connect();
      await this.session.publish(envelope);
    } catch (error) {
      // RabbitMQ's connection does not come back by itself (NATS's does): a new one next time.
      if (this.name === "rabbitmq" && this.session) {
        const dead = this.session;
        this.session = null;
        await dead.close().catch(() => {});
      }
      throw error;
    }
  }

  /** Messages still with the broker (RabbitMQ: ready ones; unacknowledged go back when the workers stop). */
  async outstanding(): Promise<number> {
    this.session ??= await this.connect();
    return this.session.outstanding();
  }

  async close(): Promise<void> {
    await this.session?.close().catch(() => {});
    this.session = null;
  }

  /**
   * Stops the broker under live traffic for `downS` seconds and starts it again; resolves once a
   * message of it has an outcome again.
   */
  async restart(downS: number, log: WorkerLog, phase: (text: string) => void): Promise<Outage> {
    const before = log.between(this.via, 0);
    for (const deadline = Date.now() + 60_000; log.between(this.via, 0) < before + 20;) {
      if (Date.now() > deadline) throw new Error(`no ${this.broker.title} traffic to restart under`);
      await sleep(200);
    }
    const downAt = Date.now();
    await this.broker.stop();
    const stoppedAt = Date.now();
    phase(`${this.broker.title} stopped (${this.how}; ${stoppedAt - downAt} ms)`);
    await sleep(downS * 1000);
    const startingAt = Date.now();
    await this.broker.start();
    const upAt = Date.now();
    phase(`${this.broker.title} started again after ${((upAt - downAt) / 1000).toFixed(1)} s (same port and data)`);
    let resumedMs = -1;
    for (;;) {
      if (log.between(this.via, upAt) > 0) {
        resumedMs = Date.now() - upAt;
        break;
      }
      if (Date.now() - upAt > 60_000)
        throw new Error(`the workers did not resume on ${this.broker.title} within 60 s of its start`);
      await sleep(100);
    }
    phase(`workers handling ${this.broker.title}'s messages again after ${resumedMs} ms`);
    const downS_ = (upAt - downAt) / 1000;
    return {
      title: this.broker.title,
      how: this.how,
      downMs: upAt - downAt,
      stopMs: stoppedAt - downAt,
      committedWhileDown: log.between(this.via, stoppedAt, startingAt, FINAL_OUTCOMES),
      committedBound: this.heldBound,
      reconnectsWhileDown: log.reconnectsBetween(this.via, downAt, upAt),
      // Backed off: at most 10 attempts a second per worker (a busy spin makes thousands).
      reconnectBound: Math.ceil(this.workers * (downS_ + 2) * 10),
      resumedMs,
    };
  }
}
