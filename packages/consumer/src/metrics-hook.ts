import type { TransportLogger } from "./types.ts";

// What the runtime and the transports report for metrics, with no metrics library behind it:
// `@review-console/consumer/metrics` fills it with prom-client, a worker may bring its own.

/** An outcome's type, or `unavailable`: the runtime itself failed (the database is away) and the message comes back. */
export type HandledOutcome = "applied" | "duplicate-suppressed" | "wait" | "retry" | "review" | "unavailable";

/** What a transport holds and what its broker still has for the worker. */
export interface PendingSource {
  /** Messages this process has taken and not settled (running, waiting, queued behind their key); no I/O. */
  held(): number;
  /**
   * Messages the broker has not delivered to any process of the worker yet, read from the broker
   * (one cheap call); null when the transport cannot tell now (not connected).
   */
  backlog?(): Promise<number | null>;
}

export interface ConsumerMetrics {
  /** A message (a replay's too: transport `replay`) got its answer from the runtime. */
  messageHandled(transport: string, outcome: HandledOutcome): void;
  /** A handler's `apply` or `execute` returned or threw after `seconds`. */
  handlerDuration(transport: string, kind: string, seconds: number): void;
  /** A transport starts: its pending count is read from `source` until the returned function is called. */
  trackPending(transport: string, source: PendingSource): () => void;
}

/** The default: nothing is counted. */
export const noMetrics: ConsumerMetrics = {
  messageHandled() {},
  handlerDuration() {},
  trackPending: () => () => {},
};

/**
 * `metrics` with every call guarded: a metrics library that throws must not fail a message
 * whose outcome is already committed. Each method's first failure is logged, later ones not.
 */
export function guardedMetrics(metrics: ConsumerMetrics, logger: TransportLogger): ConsumerMetrics {
  if (metrics === noMetrics) return metrics;
  const warned = new Set<string>();
  const guard = <T>(call: string, fallback: T, run: () => T): T => {
    try {
      return run();
    } catch (err) {
      if (!warned.has(call)) logger.warn({ err, call }, "metrics hook failed; the message goes on");
      warned.add(call);
      return fallback;
    }
  };
  return {
    messageHandled: (transport, outcome) =>
      guard("messageHandled", undefined, () => metrics.messageHandled(transport, outcome)),
    handlerDuration: (transport, kind, seconds) =>
      guard("handlerDuration", undefined, () => metrics.handlerDuration(transport, kind, seconds)),
    trackPending: (transport, source) => {
      const stop = guard(
        "trackPending",
        () => {},
        () => metrics.trackPending(transport, source),
      );
      return () => guard("trackPending", undefined, stop);
    },
  };
}
