import { log } from "@/lib/log";
import { FailureBackoff } from "@/lib/failure-backoff";
import {
  claimDeliveries,
  DEFAULT_DELIVERY_OPTIONS,
  type DeliveryOptions,
  attemptDelivery,
  recordAttempt,
} from "./deliver";
import { processLogBatch } from "./log-events";
import { checkThresholds } from "./thresholds";

// The notifier's loop (docs/decisions/0032-notifications.md): derive events from the decision log
// and, every so often, from the counts; then keep up to `concurrency` deliveries in flight. It
// runs beside the operations dispatcher in each console process; the database decides which
// process does each step (the cursor row, an advisory lock, the delivery leases), so any number
// may run. Nothing here runs inside a request: a slow endpoint only ever holds a delivery slot.

export interface NotifierOptions extends DeliveryOptions {
  signal: AbortSignal;
  /** The longest it sleeps between rounds. */
  tickMs: number;
  /** How often the thresholds are checked. */
  thresholdEveryMs: number;
  /** Log entries read per step. */
  logBatch: number;
}

export const DEFAULT_NOTIFIER_OPTIONS: Omit<NotifierOptions, "signal"> = {
  ...DEFAULT_DELIVERY_OPTIONS,
  tickMs: 1_000,
  thresholdEveryMs: 30_000,
  logBatch: 500,
};

/** Log steps per round at most: a long backlog is read in a few rounds, not one long one. */
const LOG_STEPS_PER_ROUND = 10;

export async function runNotifier(options: NotifierOptions): Promise<void> {
  const { signal } = options;
  const inFlight = new Map<string, { endpointId: string; done: Promise<void> }>();
  let wake: (() => void) | null = null;
  let lastThresholdCheck = 0;

  const send = (delivery: Awaited<ReturnType<typeof claimDeliveries>>[number]) => {
    const done = attemptDelivery(delivery, options, signal)
      .then((result) => (result ? recordAttempt(delivery, result, options) : undefined))
      .then(() => undefined)
      .catch((error: unknown) => log.warn({ err: error, deliveryId: delivery.id }, "webhook attempt not recorded"))
      .finally(() => {
        inFlight.delete(delivery.id);
        wake?.();
      });
    inFlight.set(delivery.id, { endpointId: delivery.endpointId, done });
  };

  const backoff = new FailureBackoff(options.tickMs);
  while (!signal.aborted) {
    let wait = options.tickMs;
    try {
      for (let step = 0; step < LOG_STEPS_PER_ROUND; step++) {
        const result = await processLogBatch(options.logBatch);
        if (!result.ran || result.entries < options.logBatch) break;
      }
      if (Date.now() - lastThresholdCheck >= options.thresholdEveryMs) {
        lastThresholdCheck = Date.now();
        await checkThresholds();
      }
      const busy = [...new Set([...inFlight.values()].map((f) => f.endpointId))];
      const claimed = await claimDeliveries(options.concurrency - inFlight.size, busy, options);
      for (const delivery of claimed) send(delivery);
      backoff.succeeded();
    } catch (error) {
      if (signal.aborted) break;
      wait = backoff.failed();
      log.warn({ err: error, failures: backoff.failures, retryInMs: wait }, "notifier round failed; trying again");
    }
    await new Promise<void>((resolve) => {
      // Each round's listener goes with its round: left on the signal, one a second piled up for
      // as long as the console ran.
      const stop = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", stop);
        resolve();
      };
      const timer = setTimeout(stop, wait);
      wake = stop;
      signal.addEventListener("abort", stop, { once: true });
    });
    wake = null;
  }
  await Promise.allSettled([...inFlight.values()].map((f) => f.done));
}
