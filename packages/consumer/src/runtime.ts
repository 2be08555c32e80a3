import {
  decide,
  type Decision,
  type ReviewDecision,
  envelopeSchema,
  type Envelope,
  createKindRegistry,
  defaultKindRegistry,
  type KindDefinition,
  type KindRegistry,
  unknownEffectCheck,
  nextAttempt,
} from "@review-console/contract";
import { BatchFailed, BatchTransaction } from "./batch-store.ts";
import { Batcher, batchSettings, type BatchOptions } from "./batcher.ts";
import { crashPoint } from "./crash-hook.ts";
import { describeError, EffectOutcomeUnknownError, PermanentFailure, TemporaryFailure } from "./errors.ts";
import type { ReviewDesk } from "./desk.ts";
import { jsonLogger, type ConsumerLogger } from "./logger.ts";
import { guardedMetrics, noMetrics, type ConsumerMetrics } from "./metrics-hook.ts";
import { writeReview, type HeldOutcome } from "./review.ts";
import {
  extendLease,
  JournalConflict,
  KeyTransaction,
  markUnknown,
  QueuedStatementError,
  recordExternalApplied,
  recordFailedAttempt,
  sqlState,
  TRANSIENT_STATES,
  type KeyState,
} from "./store.ts";
import type { ExternalHandler, Handler, IncomingMessage, LocalHandler, Outcome } from "./types.ts";

export interface RuntimeOptions {
  /** The logical consumer: every process of one worker shares it (its attempts, its replay claims). */
  name: string;
  /**
   * The console: where held messages become review records and replays come from. A worker of
   * its own uses httpDesk (the console's API, with a `consumer` token).
   */
  desk: ReviewDesk;
  /** One handler per kind this worker serves; messages of other kinds are unsupported here. */
  handlers: Record<string, Handler>;
  /** Kind definitions (payload schemas, temporary reasons); defaults to the console's registry. */
  registry?: KindRegistry;
  /** How long a `started` effect is reserved for its worker; extended while the call runs. */
  effectLeaseMs?: number;
  /** How long an external call may take before its outcome counts as unknown. */
  effectTimeoutMs?: number;
  /** A message handed out more often than this is routed to review instead of being run again. */
  maxDeliveries?: number;
  /**
   * A gap is held back this long after the message was received before it becomes a review
   * record: in a consumer group, a key's next message can reach one worker a moment before its
   * predecessor is decided by another. 0 records every gap at once. Replays get no grace.
   */
  gapGraceMs?: number;
  /** Defaults to JSON lines on stderr; a pino logger fits. */
  logger?: ConsumerLogger;
  /**
   * Told every outcome, every handler's duration, and (through the transport) what is pending;
   * `prometheusMetrics()` of `@review-console/consumer/metrics` is one. Counts nothing by default.
   */
  metrics?: ConsumerMetrics;
  /**
   * Commits the local effects of messages with different keys together, up to `maxMessages` per
   * transaction, each behind its own savepoint (docs/decisions/0021). Off by default; `true` is
   * `{ maxMessages: 32, lingerMs: 2 }`. External effects and replays run one at a time either way.
   */
  batch?: BatchOptions | boolean;
}

export interface ProcessOptions {
  /** Identifies the message's attempts: `message:<id>` by default, `replay:<id>` for a replay. */
  attemptKey?: string;
  /** Writes a held outcome; by default a review record through the intake statement. */
  recordHeld?: (held: HeldOutcome) => Promise<{ id: string | null; attempts: number }>;
}

type Review = Extract<Outcome, { type: "review" }>;

/** A message waiting for its batch: decided and acted on with the others of its batch. */
interface BatchItem {
  message: IncomingMessage;
  raw: unknown;
  envelope: Envelope;
  attemptKey: string;
  options: ProcessOptions;
}

/** What a batch found for one of its messages; acted on once the batch committed. */
type BatchResult =
  | { next: "applied" }
  | { next: "step"; step: Step }
  | { next: "failed"; error: unknown }
  /** Decided again alone, after the batch (a journal conflict, or an expired lease to mark unknown). */
  | { next: "alone" };

/** What the locked transaction found; acted on after it commits (external effects, review records). */
type Step =
  | { next: "done"; outcome: Outcome }
  | { next: "hold"; held: HeldOutcome }
  | { next: "call"; failedBefore: number }
  | { next: "failed"; error: unknown; failedBefore: number };

const SHAPE_REASONS = new Set(["invalid-contract", "unsupported-schema", "invalid-payload"]);

/** Wraps what a local handler threw, so it is not mistaken for a failure of the runtime's own SQL. */
class HandlerError extends Error {
  constructor(readonly original: unknown) {
    super("handler failed");
  }
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export class ConsumerRuntime {
  readonly name: string;
  readonly registry: KindRegistry;
  readonly desk: ReviewDesk;
  readonly log: ConsumerLogger;
  readonly effectLeaseMs: number;
  readonly effectTimeoutMs: number;
  readonly maxDeliveries: number;
  readonly gapGraceMs: number;
  /** The metrics hook, guarded: a failing one is logged, never fails a message. */
  readonly metrics: ConsumerMetrics;
  /** Messages committed together at most: 1 when batching is off (or the worker has no local handler). */
  readonly batchMessages: number;
  private readonly handlers: Map<string, Handler>;
  private readonly batcher: Batcher<BatchItem, Outcome> | null;

  constructor(options: RuntimeOptions) {
    if (options.name.trim().length === 0) throw new Error("a consumer needs a name");
    const all = options.registry ?? defaultKindRegistry;
    const defs: KindDefinition[] = [];
    this.handlers = new Map();
    for (const [kind, handler] of Object.entries(options.handlers)) {
      const def = all.get(kind);
      if (!def) throw new Error(`a handler is given for kind ${kind}, which the registry does not define`);
      defs.push(def);
      this.handlers.set(kind, handler);
    }
    // Only the kinds served here: another kind is an unsupported schema for this worker, and
    // its review record says which kinds it serves.
    this.registry = createKindRegistry(defs);
    this.name = options.name;
    this.desk = options.desk;
    this.effectLeaseMs = options.effectLeaseMs ?? 30_000;
    this.effectTimeoutMs = options.effectTimeoutMs ?? 20_000;
    this.maxDeliveries = options.maxDeliveries ?? 10;
    this.gapGraceMs = options.gapGraceMs ?? 2000;
    this.log = (options.logger ?? jsonLogger()).child({ component: "consumer", consumer: options.name });
    this.metrics = guardedMetrics(options.metrics ?? noMetrics, this.log);
    // Without a local handler there is nothing to batch: the transports keep their key count.
    const hasLocal = [...this.handlers.values()].some((h) => h.effect === "local");
    const settings = batchSettings(options.batch);
    const batch = hasLocal ? settings : null;
    this.batchMessages = batch?.maxMessages ?? 1;
    this.batcher = batch && batch.maxMessages > 1 ? new Batcher(batch, (items) => this.runBatch(items)) : null;
  }

  /** Kinds this worker serves (for claiming replays). */
  kinds(): string[] {
    return this.registry.kinds();
  }

  /**
   * Decides and acts on one message: the outcome is committed (effect and journal, or a review
   * record) before this returns anything but `wait` or `retry`, so the caller acks only then.
   * The metrics hook hears the outcome (or `unavailable` when this throws).
   */
  async process(message: IncomingMessage, options: ProcessOptions = {}): Promise<Outcome> {
    const transport = message.source.transport;
    let outcome: Outcome;
    try {
      outcome = await this.answer(message, options);
    } catch (error) {
      this.metrics.messageHandled(transport, "unavailable");
      throw error;
    }
    this.metrics.messageHandled(transport, outcome.type);
    return outcome;
  }

  private async answer(message: IncomingMessage, options: ProcessOptions): Promise<Outcome> {
    const raw = message.body.parsed ? message.body.value : message.body.text;
    // Rules 1 and 2 need no state: a message that fails them takes no lock.
    const shape = decide(
      raw,
      { lastSequence: 0, journal: null, inFlightSequences: [], now: new Date() },
      this.registry,
    );
    if (shape.outcome === "review" && SHAPE_REASONS.has(shape.reason)) {
      return this.hold(message, options, {
        category: shape.category,
        reason: shape.reason,
        requiredCheck: shape.requiredCheck,
        attempts: 1,
        lastError: issuesText(shape),
      });
    }
    const envelope = envelopeSchema.parse(raw);
    const unstorable = unstorableKeys(envelope);
    if (unstorable.length > 0) {
      // Valid by the contract, but PostgreSQL cannot key a journal entry or a lock by it: without
      // this the message would fail on every delivery.
      return this.hold(message, options, {
        category: "manual-review",
        reason: "invalid-contract",
        requiredCheck: `supply ${unstorable.map((i) => i.path).join(", ")} the database can store, in the envelope of message ${envelope.id.slice(0, 200)}`,
        attempts: 1,
        lastError: unstorable.map((i) => `${i.path}: ${i.message}`).join("; "),
      });
    }
    const attemptKey = options.attemptKey ?? `message:${envelope.id}`;
    // A transport's message with a local effect joins a batch; a replay (its own attempt key and
    // record) and an external effect run alone.
    if (
      this.batcher &&
      this.handlers.get(envelope.kind)!.effect === "local" &&
      options.attemptKey === undefined &&
      options.recordHeld === undefined
    ) {
      return this.batcher.submit({ message, raw, envelope, attemptKey, options }, [
        `sequence:${envelope.sequenceKey}`,
        `effect:${envelope.effectKey}`,
      ]);
    }
    return this.alone(message, raw, envelope, attemptKey, options);
  }

  /** One message in a transaction of its own. */
  private async alone(
    message: IncomingMessage,
    raw: unknown,
    envelope: Envelope,
    attemptKey: string,
    options: ProcessOptions,
  ): Promise<Outcome> {
    // A journal entry that appears between our read and our insert (an owner's action, a worker
    // on a duplicate) means the decision was made on stale facts: make it again. So does a
    // deadlock with the console's actions.
    for (let round = 1; ; round++) {
      try {
        return await this.decideAndAct(message, raw, envelope, attemptKey, options);
      } catch (error) {
        const again = error instanceof JournalConflict || TRANSIENT_STATES.has(sqlState(error) ?? "");
        if (!again || round >= 5) throw error;
      }
    }
  }

  private async decideAndAct(
    message: IncomingMessage,
    raw: unknown,
    envelope: Envelope,
    attemptKey: string,
    options: ProcessOptions,
  ): Promise<Outcome> {
    const handler = this.handlers.get(envelope.kind)!;
    const tx = await KeyTransaction.open(envelope, this.name, attemptKey);
    const failedBefore = tx.state.attempts?.failedAttempts ?? 0;
    let step: Step;
    try {
      const decision = decide(raw, tx.state.decision, this.registry);
      const early = this.beforeApply(decision, tx.state, message, envelope);
      if (early) {
        if (early.next === "hold" && early.held.category === "effect-result-unknown") {
          // Started past its lease: the worker is gone; the journal says so from now on.
          await tx.commitUnknown(envelope.effectKey);
        } else {
          await tx.commitRead();
        }
        step = early;
      } else {
        crashPoint("after-decide");
        if (handler.effect === "local") {
          const started = performance.now();
          try {
            await handler.apply({ tx: tx.handle(), envelope, effectKey: envelope.effectKey });
          } catch (error) {
            throw new HandlerError(error);
          } finally {
            this.handlerTook(message, envelope, started);
          }
          await tx.commitLocalApplied(envelope, this.name, attemptKey).catch((error: unknown) => {
            throw error instanceof QueuedStatementError ? new HandlerError(error.original) : error;
          });
          step = { next: "done", outcome: { type: "applied", providerRef: null } };
        } else {
          await tx.commitStarted(envelope, this.effectLeaseMs);
          step = { next: "call", failedBefore };
        }
      }
    } catch (error) {
      await tx.rollback(error);
      if (!(error instanceof HandlerError)) throw error;
      // The local effect's transaction rolled back: nothing of it exists.
      step = { next: "failed", error: error.original, failedBefore };
    }

    switch (step.next) {
      case "done":
        if (step.outcome.type !== "wait" && step.outcome.type !== "retry") crashPoint("after-commit");
        return step.outcome;
      case "hold":
        return this.hold(message, options, step.held);
      case "failed":
        return this.failed(message, options, envelope, attemptKey, step.error, step.failedBefore, false);
      case "call":
        return this.callProvider(message, options, envelope, attemptKey, handler as ExternalHandler, step.failedBefore);
    }
  }

  /**
   * A batch: every key locked at once, each message decided on its own key's state; the local
   * effects applied one after the other, each behind its savepoint, and committed together. A
   * handler that fails is rolled back to its savepoint alone; the batch goes on without it. Every
   * answer comes after the COMMIT (so nothing is acknowledged before), and what a message needs
   * besides (a review record, a failed attempt, a decision of its own) follows it, per message.
   * When the batch as a whole fails, each message runs alone, as without batching.
   */
  private async runBatch(items: BatchItem[]): Promise<Promise<Outcome>[]> {
    let tx: BatchTransaction;
    try {
      tx = await BatchTransaction.open(items, this.name);
    } catch (error) {
      return this.eachAlone(items, error);
    }
    const results: (BatchResult | null)[] = items.map(() => null);
    const apply: number[] = [];
    items.forEach((item, i) => {
      const state = tx.states[i]!;
      const decision = decide(item.raw, state.decision, this.registry);
      const early = this.beforeApply(decision, state, item.message, item.envelope);
      if (!early) apply.push(i);
      // A started effect past its lease is marked unknown in a transaction of its own.
      else if (early.next === "hold" && early.held.category === "effect-result-unknown") results[i] = { next: "alone" };
      else results[i] = { next: "step", step: early };
    });
    try {
      for (let from = 0; ;) {
        for (const i of apply.slice(from)) {
          const { message, envelope } = items[i]!;
          crashPoint("after-decide");
          const handle = tx.begin(i);
          const started = performance.now();
          let threw: { error: unknown } | null = null;
          try {
            await (this.handlers.get(envelope.kind) as LocalHandler).apply({
              tx: handle,
              envelope,
              effectKey: envelope.effectKey,
            });
          } catch (error) {
            threw = { error };
          } finally {
            this.handlerTook(message, envelope, started);
          }
          if (tx.fatal) throw tx.fatal;
          if (tx.broken) break;
          if (threw) {
            tx.abandon(i);
            results[i] = { next: "failed", error: threw.error };
          } else {
            tx.finish(i, this.name, tx.states[i]!.attempts !== null);
            results[i] = { next: "applied" };
          }
        }
        const failure = tx.broken ? tx.recover() : await tx.commit();
        if (!failure) break;
        // Rolled back to its savepoint: it alone fails; the messages after it run again.
        results[failure.member] = failure.conflict ? { next: "alone" } : { next: "failed", error: failure.error };
        from = apply.indexOf(failure.member) + 1;
      }
    } catch (error) {
      await tx.rollback(error);
      return this.eachAlone(items, error);
    }
    return items.map((item, i) => this.afterBatch(item, results[i]!, tx.states[i]!.attempts?.failedAttempts ?? 0));
  }

  /** A batch that failed as a whole: each of its messages decided again in a transaction of its own. */
  private eachAlone(items: BatchItem[], error: unknown): Promise<Outcome>[] {
    const original = error instanceof BatchFailed ? error.original : error;
    this.log.warn({ err: original, messages: items.length }, "batch failed; its messages run one at a time");
    return items.map((item) => this.alone(item.message, item.raw, item.envelope, item.attemptKey, item.options));
  }

  /** A message's answer once its batch committed. */
  private async afterBatch(item: BatchItem, result: BatchResult, failedBefore: number): Promise<Outcome> {
    const { message, envelope, attemptKey, options } = item;
    switch (result.next) {
      case "applied":
        crashPoint("after-commit");
        return { type: "applied", providerRef: null };
      case "failed":
        return this.failed(message, options, envelope, attemptKey, result.error, failedBefore, false);
      case "alone":
        return this.alone(message, item.raw, envelope, attemptKey, options);
      case "step": {
        const step = result.step;
        if (step.next === "hold") return this.hold(message, options, step.held);
        if (step.next !== "done") throw new Error(`a batch decided ${step.next} before applying`);
        if (step.outcome.type !== "wait" && step.outcome.type !== "retry") crashPoint("after-commit");
        return step.outcome;
      }
    }
  }

  private handlerTook(message: IncomingMessage, envelope: Envelope, started: number): void {
    this.metrics.handlerDuration(message.source.transport, envelope.kind, (performance.now() - started) / 1000);
  }

  /** Every decision but apply-and-record, and the reasons an apply must not run now. */
  private beforeApply(decision: Decision, state: KeyState, message: IncomingMessage, envelope: Envelope): Step | null {
    const now = state.decision.now.getTime();
    switch (decision.outcome) {
      case "duplicate-suppressed":
        return { next: "done", outcome: { type: "duplicate-suppressed", because: decision.because } };
      case "wait": {
        // Offered again when the lease it waits for runs out (or its worker finishes earlier).
        const until = decision.reason === "effect-in-flight" ? state.decision.journal?.leaseExpiresAt : state.nextLease;
        const retryInMs = clamp((until?.getTime() ?? now) - now + 50, 100, this.effectLeaseMs);
        return { next: "done", outcome: { type: "wait", reason: decision.reason, retryInMs } };
      }
      case "review": {
        const age = message.receivedAt === undefined ? Infinity : Date.now() - message.receivedAt;
        if (decision.category === "sequence-gap" && age < this.gapGraceMs) {
          const retryInMs = clamp(Math.min(this.gapGraceMs - age, 250), 20, this.gapGraceMs);
          return { next: "done", outcome: { type: "wait", reason: "predecessor-missing", retryInMs } };
        }
        return {
          next: "hold",
          held: {
            category: decision.category,
            reason: decision.reason,
            requiredCheck: decision.requiredCheck,
            attempts: Math.max(1, state.attempts?.failedAttempts ?? 0),
          },
        };
      }
      case "apply-and-record":
        break;
    }
    const attempts = state.attempts;
    if (attempts?.routedReason) {
      // Routed to review before, and delivered again (a lost ack): route again, never re-run.
      return {
        next: "hold",
        held: {
          category: "manual-review",
          reason: attempts.routedReason,
          requiredCheck: failureCheck(attempts.routedReason, envelope, attempts.failedAttempts),
          attempts: attempts.failedAttempts,
        },
      };
    }
    if (message.deliveryCount > this.maxDeliveries) {
      return {
        next: "hold",
        held: {
          category: "manual-review",
          reason: "delivery-limit",
          requiredCheck: deliveryLimitCheck(envelope, message),
          attempts: message.deliveryCount,
          lastError: `delivered ${message.deliveryCount} times (limit ${this.maxDeliveries}) without an outcome`,
        },
      };
    }
    if (attempts?.nextAttemptAt && attempts.nextAttemptAt.getTime() > now) {
      // A retry is due later (also when a fresh process picked the message up early).
      return {
        next: "done",
        outcome: {
          type: "retry",
          reason: "retry-delay",
          retryInMs: attempts.nextAttemptAt.getTime() - now,
          failedAttempts: attempts.failedAttempts,
        },
      };
    }
    return null;
  }

  private async callProvider(
    message: IncomingMessage,
    options: ProcessOptions,
    envelope: Envelope,
    attemptKey: string,
    handler: ExternalHandler,
    failedBefore: number,
  ): Promise<Outcome> {
    crashPoint("after-started");
    const effectKey = envelope.effectKey;
    // A slow but live worker keeps its lease, so it is not taken for a dead one.
    const heartbeat = setInterval(
      () => void extendLease(effectKey, this.effectLeaseMs).catch((err) => this.log.warn({ err }, "lease")),
      Math.max(50, Math.floor(this.effectLeaseMs / 3)),
    );
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let result: { ok: true; providerRef: string } | { ok: false; error: unknown };
    const started = performance.now();
    try {
      const call = handler.execute({ envelope, effectKey, signal: controller.signal });
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new EffectOutcomeUnknownError(`no answer within ${this.effectTimeoutMs} ms`));
        }, this.effectTimeoutMs);
      });
      const answer = await Promise.race([call, timeout]);
      result = { ok: true, providerRef: answer.providerRef };
    } catch (error) {
      result = { ok: false, error };
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timer);
      this.handlerTook(message, envelope, started);
    }
    crashPoint("after-provider-call");
    if (result.ok) {
      // Idempotent, and the provider has acted: worth a few tries before the message falls back
      // to its lease (and, past it, to effect-result-unknown).
      await persist(() => recordExternalApplied(envelope, result.providerRef, this.name, attemptKey));
      crashPoint("after-commit");
      return { type: "applied", providerRef: result.providerRef };
    }
    return this.failed(message, options, envelope, attemptKey, result.error, failedBefore, true);
  }

  /**
   * A handler failed. For an external effect only a TemporaryFailure or PermanentFailure says the
   * provider did not act; anything else may have reached it and is an unknown outcome.
   */
  private async failed(
    message: IncomingMessage,
    options: ProcessOptions,
    envelope: Envelope,
    attemptKey: string,
    error: unknown,
    failedBefore: number,
    external: boolean,
  ): Promise<Outcome> {
    const lastError = describeError(error);
    const declared = error instanceof TemporaryFailure || error instanceof PermanentFailure;
    if (external && !declared) {
      await markUnknown(envelope.effectKey);
      return this.hold(message, options, {
        category: "effect-result-unknown",
        reason: "effect-result-unknown",
        requiredCheck: unknownEffectCheck(envelope, this.registry.get(envelope.kind)),
        attempts: Math.max(1, failedBefore + 1),
        lastError,
      });
    }
    const reason = declared ? error.reason : "handler-error";
    const policy = this.registry.get(envelope.kind)?.temporaryReasons ?? {};
    // Also a PermanentFailure goes through the policy: it routes it under its own reason.
    const next =
      error instanceof PermanentFailure ? nextAttempt(0, reason, {}) : nextAttempt(failedBefore, reason, policy);
    const failed = await recordFailedAttempt({
      consumer: this.name,
      attemptKey,
      messageId: envelope.id,
      effectKey: envelope.effectKey,
      reason,
      error: lastError,
      retryInMs: next.action === "retry" ? next.delayMs : null,
      routedReason: next.action === "review" ? next.reason : null,
      clearStarted: external,
    });
    if (next.action === "retry") {
      this.log.info({ effectKey: envelope.effectKey, reason, failed, delayMs: next.delayMs }, "retry scheduled");
      return { type: "retry", reason, retryInMs: next.delayMs, failedAttempts: failed };
    }
    return this.hold(message, options, {
      category: "manual-review",
      reason: next.reason,
      requiredCheck: failureCheck(next.reason, envelope, failed, reason),
      attempts: failed,
      lastError,
    });
  }

  private async hold(message: IncomingMessage, options: ProcessOptions, held: HeldOutcome): Promise<Review> {
    const record = options.recordHeld
      ? await options.recordHeld(held)
      : await writeReview(this.desk, message.body, message.source, held);
    crashPoint("after-commit");
    return {
      type: "review",
      category: held.category,
      reason: held.reason,
      requiredCheck: held.requiredCheck,
      attempts: record.attempts,
      reviewId: record.id,
    };
  }
}

function issuesText(decision: ReviewDecision): string | undefined {
  if (!decision.issues || decision.issues.length === 0) return undefined;
  return decision.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/** The next step for a person, for the reasons the runtime (not `decide`) routes to review. */
export function failureCheck(reason: string, envelope: Envelope, attempts: number, lastReason?: string): string {
  const what = `${envelope.kind} ${envelope.effectKey} (message ${envelope.id})`;
  if (reason === "retry-limit") {
    const cause = lastReason && lastReason !== "retry-limit" ? ` with ${lastReason}` : "";
    return `find out why ${what} kept failing${cause} after ${attempts} attempts, then replay it`;
  }
  if (reason === "delivery-limit") return `find out why ${what} was delivered again and again, then replay it`;
  return `resolve ${reason} for ${what}, then replay or cancel it`;
}

function deliveryLimitCheck(envelope: Envelope, message: IncomingMessage): string {
  const where = message.source.transportId ? ` (transport id ${message.source.transportId})` : "";
  return `find out why message ${envelope.id}${where} was delivered ${message.deliveryCount} times without an outcome, then replay it`;
}

// A B-tree entry must stay under ~2.7 kB, and PostgreSQL text cannot hold NUL.
const MAX_KEY_CHARS = 1000;

function unstorableKeys(envelope: Envelope): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  for (const field of ["id", "kind", "effectKey", "sequenceKey"] as const) {
    const value = envelope[field];
    if (value.includes("\u0000")) issues.push({ path: field, message: "contains a NUL character" });
    else if (value.length > MAX_KEY_CHARS)
      issues.push({ path: field, message: `is longer than ${MAX_KEY_CHARS} characters` });
  }
  return issues;
}

/**
 * Runs an idempotent write again after a failure (a deadlock, a dropped connection) for up to
 * PERSIST_MS: long enough to outlast a database restart, so a provider's answer in hand is
 * recorded once the database is back instead of ending as effect-result-unknown.
 */
const PERSIST_MS = 60_000;
async function persist(write: () => Promise<void>): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (Date.now() - started >= PERSIST_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 2000)));
    }
  }
}
