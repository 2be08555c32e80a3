import { sleep } from "./sleep.ts";
import { ReplayWorker, type ReplayOptions } from "./replays.ts";
import { ConsumerRuntime, type RuntimeOptions } from "./runtime.ts";
import { dispositionOf, type Disposition, type IncomingMessage, type Outcome, type Transport } from "./types.ts";

export interface ConsumerOptions extends RuntimeOptions {
  /** Claim and run replays scheduled in the console (on by default); `false` turns it off. */
  replays?: ReplayOptions | false;
  /** Called with every outcome, of a transport message or a replay (for logs and metrics); must not throw. */
  onOutcome?: (outcome: Outcome, message: IncomingMessage) => void;
}

export interface Consumer {
  readonly runtime: ConsumerRuntime;
  readonly replays: ReplayWorker | null;
  /**
   * Consumes `transport` (and due replays) until `signal` is aborted, then finishes the messages
   * in hand and returns. Unacknowledged messages stay with the broker for the next start.
   */
  run(options: { transport?: Transport; signal: AbortSignal }): Promise<void>;
}

/** The worker runtime a team embeds: see docs/consumer.md. */
export function createConsumer(options: ConsumerOptions): Consumer {
  const runtime = new ConsumerRuntime(options);
  const replays =
    options.replays === false
      ? null
      : new ReplayWorker(runtime, { onOutcome: options.onOutcome, ...(options.replays ?? {}) });
  let failures = 0;

  // An error of the runtime itself (the database is away): the message stays unacknowledged and
  // is offered again after a growing pause; the broker's delivery count is not touched by it.
  const handle = async (message: IncomingMessage): Promise<Disposition> => {
    try {
      const outcome = await runtime.process(message);
      failures = 0;
      options.onOutcome?.(outcome, message);
      return dispositionOf(outcome);
    } catch (err) {
      failures++;
      runtime.log.error({ err, transportId: message.source.transportId }, "message not processed; offered again later");
      await sleep(Math.min(100 * 2 ** Math.min(failures, 6), 5000));
      return { ack: false, retryInMs: Math.min(250 * 2 ** Math.min(failures, 5), 10_000), cause: "unavailable" };
    }
  };

  return {
    runtime,
    replays,
    async run({ transport, signal }) {
      const context = {
        maxDeliveries: runtime.maxDeliveries,
        logger: runtime.log,
        metrics: runtime.metrics,
        batchMessages: runtime.batchMessages,
      };
      await Promise.all([transport?.run(handle, signal, context), replays?.loop(signal)]);
    },
  };
}
