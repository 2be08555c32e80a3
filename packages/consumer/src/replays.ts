import type { ClaimedReplay, ReplayOutcomeReport } from "./desk.ts";
import { sleep } from "./sleep.ts";
import { writeReview, type HeldOutcome } from "./review.ts";
import type { ConsumerRuntime } from "./runtime.ts";
import type { IncomingMessage, MessageBody, Outcome } from "./types.ts";

export interface ReplayOptions {
  /** How often to look for due replays when none were found. */
  pollMs?: number;
  /** How long a claim holds before another consumer may take the replay over. */
  leaseSeconds?: number;
  /** Replays claimed at once (one per sequenceKey: the claim hands out one key's replays in order). */
  limit?: number;
  /** Called with every replay's outcome (its message's source transport is `replay`). */
  onOutcome?: (outcome: Outcome, message: IncomingMessage) => void;
}

interface Deferred {
  item: ClaimedReplay;
  dueAt: number;
}

function bodyOf(text: string): MessageBody {
  try {
    return { parsed: true, value: JSON.parse(text), text };
  } catch (error) {
    return { parsed: false, text, problem: `not JSON: ${(error as Error).message}` };
  }
}

/**
 * Runs the replays an owner scheduled in the console through the same path as a delivery, with
 * the original `id` and `effectKey`, and reports each outcome to the replay and its record:
 * applied -> resolved, suppressed -> resolved, held again -> record open with the new reason.
 * A replay that has to wait (a lease, a retry delay) stays claimed and is run again here; if this
 * process dies, its claim runs out and the replay becomes claimable again.
 */
export class ReplayWorker {
  private readonly pollMs: number;
  private readonly leaseSeconds: number;
  private readonly limit: number;
  private readonly onOutcome: ReplayOptions["onOutcome"];
  private readonly deferred = new Map<string, Deferred>();

  constructor(
    private readonly runtime: ConsumerRuntime,
    options: ReplayOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.leaseSeconds = options.leaseSeconds ?? 60;
    this.limit = options.limit ?? 10;
    this.onOutcome = options.onOutcome;
  }

  /** Claims and runs what is due now; returns how many replays reached an outcome. */
  async runOnce(): Promise<number> {
    let finished = 0;
    const now = Date.now();
    for (const [replayId, entry] of [...this.deferred]) {
      if (entry.item.claimExpiresAt.getTime() <= now) {
        // Our claim ran out: the replay is claimable again (perhaps by another consumer).
        this.deferred.delete(replayId);
      } else if (entry.dueAt <= now) {
        this.deferred.delete(replayId);
        if (await this.run(entry.item)) finished++;
      }
    }
    const kinds = this.runtime.kinds();
    if (kinds.length === 0) return finished;
    const items = await this.runtime.desk.claimReplays({
      consumer: this.runtime.name,
      kinds,
      limit: this.limit,
      leaseSeconds: this.leaseSeconds,
    });
    // One at a time: the claim gives at most one replay per sequenceKey, in sequence order.
    for (const item of items) if (await this.run(item)) finished++;
    return finished;
  }

  /** Keeps claiming until `signal` is aborted. */
  async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let finished = 0;
      try {
        finished = await this.runOnce();
      } catch (err) {
        this.runtime.log.error({ err }, "replays: claim or run failed");
      }
      if (finished === 0) await sleep(this.pollMs, signal);
    }
  }

  private async run(item: ClaimedReplay): Promise<boolean> {
    const log = this.runtime.log.child({ replayId: item.replayId, reviewId: item.reviewId });
    let outcome: Outcome;
    const message: IncomingMessage = {
      body: bodyOf(item.envelopeText),
      source: { transport: "replay", queue: "review-console", consumer: this.runtime.name, transportId: item.replayId },
      deliveryCount: 1,
    };
    try {
      outcome = await this.runtime.process(message, {
        attemptKey: `replay:${item.replayId}`,
        recordHeld: (held) => this.heldAgain(item, held),
      });
    } catch (err) {
      log.error({ err }, "replay failed; it stays claimed until its lease runs out");
      return false;
    }
    this.onOutcome?.(outcome, message);
    switch (outcome.type) {
      case "applied":
        await this.report(item, {
          outcome: "applied",
          detail: outcome.providerRef ? `applied; provider reference ${outcome.providerRef}` : "applied",
        });
        log.info({}, "replay applied");
        return true;
      case "duplicate-suppressed":
        await this.report(item, { outcome: "duplicate-suppressed", detail: `suppressed: ${outcome.because}` });
        log.info({}, "replay suppressed: the effect already exists");
        return true;
      case "review":
        log.info({ reason: outcome.reason }, "replay held again");
        return true;
      case "wait":
      case "retry":
        this.deferred.set(item.replayId, { item, dueAt: Date.now() + outcome.retryInMs });
        return false;
    }
  }

  /** Held again: the record reopens with the new reason and check (and category, when it changed). */
  private async heldAgain(item: ClaimedReplay, held: HeldOutcome): Promise<{ id: string; attempts: number }> {
    await this.report(item, {
      outcome: "routed",
      reason: held.reason,
      requiredCheck: held.requiredCheck,
      detail: held.lastError ?? `held again: ${held.reason}`,
    });
    if (held.category !== item.category) {
      // The outcome API keeps the category; a report of the record's own message (same message
      // key, so the same, now open, record) carries the new one.
      const record = await writeReview(
        this.runtime.desk,
        bodyOf(item.messageText),
        { transport: "replay", queue: "review-console", consumer: this.runtime.name, transportId: item.replayId },
        held,
      );
      return record;
    }
    return { id: item.reviewId, attempts: held.attempts };
  }

  private async report(item: ClaimedReplay, request: ReplayOutcomeReport): Promise<void> {
    const receipt = await this.runtime.desk.reportOutcome(item.replayId, request);
    if (receipt !== "recorded") {
      // Another consumer took the replay over after our claim ran out and reported first.
      this.runtime.log.warn({ replayId: item.replayId, code: receipt.refused.code }, receipt.refused.message);
    }
  }
}
