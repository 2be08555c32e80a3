import type { Envelope, ReviewCategory } from "@review-console/contract";
import type { ConsumerMetrics } from "./metrics-hook.ts";

/**
 * The transaction a local handler writes in (a node-postgres connection inside BEGIN .. COMMIT):
 * its statements, the journal entry and the sequence advance commit together or not at all.
 */
export interface ConsumerTx {
  /** Runs one parameterized statement ($1, $2, ...) now, in the message's transaction; returns its rows. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /**
   * Hands a write over to run after the journal entry, with the COMMIT, in the same round trip:
   * one round trip less per message. Its result is not returned; an error in it rolls back all.
   */
  queue(text: string, params?: unknown[]): void;
}

/**
 * A change in the same PostgreSQL: it runs inside the decision's transaction, so the journal
 * row, the state change and the sequence advance commit together, exactly once. Throwing rolls
 * all of it back (see errors.ts for what each error means).
 */
export interface LocalHandler {
  effect: "local";
  apply(context: { tx: ConsumerTx; envelope: Envelope; effectKey: string }): Promise<void>;
}

/**
 * A call to a provider. `effectKey` must be passed on as the provider's idempotency key. Return
 * the provider's reference for the effect; throw EffectOutcomeUnknownError when the answer was
 * lost after the request may have been sent, TemporaryFailure / PermanentFailure when the
 * provider certainly did not act. Any other error counts as an unknown outcome: only the
 * provider can say whether it acted.
 */
export interface ExternalHandler {
  effect: "external";
  execute(context: { envelope: Envelope; effectKey: string; signal: AbortSignal }): Promise<{ providerRef: string }>;
}

export type Handler = LocalHandler | ExternalHandler;

/** Where a message came from, as a review record shows it. */
export interface MessageSource {
  transport: string;
  queue?: string;
  consumer?: string;
  transportId?: string;
}

/** A message body as the transport received it: parsed JSON with its exact text, or text that is not JSON. */
export type MessageBody =
  { parsed: true; value: unknown; text: string } | { parsed: false; text: string; problem: string };

export interface IncomingMessage {
  body: MessageBody;
  source: MessageSource;
  /** How often the transport has handed this message out, this time included. */
  deliveryCount: number;
  /** When this process first took the message from the broker (ms since the epoch); starts the gap grace. */
  receivedAt?: number;
}

/**
 * The two waits of CONTRACT.md, and `predecessor-missing`: a gap still within the runtime's grace
 * period (gapGraceMs since this process received the message), for a predecessor that is merely late.
 */
export type WaitReason = "effect-in-flight" | "predecessor-in-flight" | "predecessor-missing";

export type Outcome =
  | { type: "applied"; providerRef: string | null }
  | { type: "duplicate-suppressed"; because: string }
  /** Not finished: leave it unacknowledged and offer it again after `retryInMs`. */
  | { type: "wait"; reason: WaitReason; retryInMs: number }
  | { type: "retry"; reason: string; retryInMs: number; failedAttempts: number }
  | {
      type: "review";
      category: ReviewCategory;
      reason: string;
      requiredCheck: string;
      attempts: number;
      /** The review record written (or, for a replay, reopened). */
      reviewId: string | null;
    };

/**
 * What a transport does with a message once the runtime has handled it. Not acknowledged, `cause`
 * says why: a `retry` (a failed attempt, its delay decided) may go back to the broker for the
 * delay (a delayed NAK), while a `wait` (bounded by a lease or the gap grace) and `unavailable`
 * (the runtime itself could not run: the database is away) stay with the worker, so the broker's
 * delivery count, which feeds the delivery limit, is not raised by them.
 */
export type Disposition = { ack: true } | { ack: false; retryInMs: number; cause?: "wait" | "retry" | "unavailable" };

export function dispositionOf(outcome: Outcome): Disposition {
  if (outcome.type === "wait" || outcome.type === "retry") {
    return { ack: false, retryInMs: outcome.retryInMs, cause: outcome.type };
  }
  return { ack: true };
}

/** The few log calls a transport makes; a pino logger fits it. */
export interface TransportLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What the consumer tells a transport when it starts it. */
export interface TransportContext {
  /** The runtime's delivery limit: a broker-side limit at or below it would drop messages unrecorded. */
  maxDeliveries: number;
  /** The consumer's logger, for a transport given none of its own. */
  logger: TransportLogger;
  /** Where the transport reports what it holds and its broker's backlog (`trackPending`), guarded. */
  metrics?: ConsumerMetrics;
  /**
   * Messages the runtime commits together at most (its `batch.maxMessages`; 1 without batching):
   * a transport works on `concurrency` times as many keys at once, so that `concurrency` batches
   * can fill. Absent means 1.
   */
  batchMessages?: number;
}

/**
 * A broker binding. `run` hands each message to `handle` and acknowledges it only when the
 * answer says so (after the outcome is committed); it returns once `signal` is aborted and the
 * messages in hand are finished. Messages not acknowledged stay with the broker.
 */
export interface Transport {
  readonly name: string;
  run(
    handle: (message: IncomingMessage) => Promise<Disposition>,
    signal: AbortSignal,
    context?: TransportContext,
  ): Promise<void>;
}
