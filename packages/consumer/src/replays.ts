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
  /** Claims this worker found it no longer holds: not run, not renewed. */
  private readonly lost = new Set<string>();

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
    // Waiting replays stay ours while this worker lives: renewed once a third of the lease is gone.
    const now = Date.now();
    const fading = [...this.deferred.values()]
      .map((entry) => entry.item)
      .filter((item) => item.claimExpiresAt.getTime() - now < (this.leaseSeconds * 1000 * 2) / 3);
    await this.renew(fading);
    for (const [replayId, entry] of [...this.deferred]) {
      if (this.lost.has(replayId) || entry.item.claimExpiresAt.getTime() <= Date.now()) {
        // Our claim ran out: the replay is claimable again (perhaps by another consumer).
        this.deferred.delete(replayId);
        this.lost.delete(replayId);
      } else if (entry.dueAt <= Date.now()) {
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
    // One at a time: the claim gives at most one replay per sequenceKey, in sequence order. The
    // batch's claims (and the waiting ones') are renewed while it runs.
    const pending = [...items];
    const held = () => [...pending, ...[...this.deferred.values()].map((entry) => entry.item)];
    await this.keepingClaims(held, async () => {
      while (pending.length > 0) {
        const item = pending[0]!;
        if (this.lost.has(item.replayId) || item.claimExpiresAt.getTime() <= Date.now()) {
          // No longer ours (the console away past the lease, say): another consumer may run it.
          this.lost.delete(item.replayId);
        } else if (await this.run(item)) finished++;
        pending.shift();
      }
    });
    // What a renewal found gone after its replay finished anyway is nobody's concern any more.
    for (const replayId of this.lost) if (!this.deferred.has(replayId)) this.lost.delete(replayId);
    return finished;
  }

  /**
   * Renews the claims of `items` (still to run or waiting) every third of the lease while `work`
   * runs, so a live worker's claims never run out under it however slow the batch. A replay whose
   * claim could not be renewed (it ran out, perhaps taken over) is marked lost and not run.
   */
  private async keepingClaims<T>(items: () => ClaimedReplay[], work: () => Promise<T>): Promise<T> {
    const renew = this.runtime.desk.renewClaims?.bind(this.runtime.desk);
    if (!renew) return work();
    let renewing: Promise<void> = Promise.resolve();
    const timer = setInterval(
      () => {
        renewing = renewing.then(() => this.renew(items()));
      },
      Math.max(1000, (this.leaseSeconds * 1000) / 3),
    );
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await renewing;
    }
  }

  /** Renews these claims now; a claim that could not be renewed is marked lost (not run). */
  private async renew(items: ClaimedReplay[]): Promise<void> {
    const renew = this.runtime.desk.renewClaims?.bind(this.runtime.desk);
    if (!renew || items.length === 0) return;
    try {
      const renewed = await renew({
        consumer: this.runtime.name,
        replayIds: items.map((item) => item.replayId),
        leaseSeconds: this.leaseSeconds,
      });
      const until = new Map(renewed.map((r) => [r.replayId, r.claimExpiresAt]));
      for (const item of items) {
        const expiry = until.get(item.replayId);
        if (expiry) item.claimExpiresAt = expiry;
        else this.lost.add(item.replayId);
      }
    } catch (err) {
      // The console is away: the claims keep the expiry they had, and are checked before a run.
      this.runtime.log.warn({ err }, "replays: renewing claims failed");
    }
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
