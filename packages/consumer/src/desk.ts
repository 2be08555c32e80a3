// Where a consumer sends what it cannot process and takes the replays people scheduled: the
// review console. The runtime needs these three calls and nothing else of it, so a worker in its
// own repository talks to the console's HTTP API (./http-desk.ts), and the console's own
// processes (its demo, its crash test) may plug in a desk that calls the same code in-process.

/** A held message as the console records it: why, what to check, and the message as received. */
export interface HeldReport {
  category: string;
  reason: string;
  requiredCheck: string;
  attempts: number;
  lastError?: string;
  source: { transport: string; queue?: string; consumer?: string; transportId?: string };
  /** The message, parsed; `rawMessage` is its JSON text exactly as received. */
  message: unknown;
  rawMessage: string;
}

/** One replay the console handed this consumer: run `envelopeText` with its original effectKey. */
export interface ClaimedReplay {
  replayId: string;
  reviewId: string;
  revisionNumber: number;
  claimExpiresAt: Date;
  /** The envelope to run, as JSON text exactly as stored: the latest revision, else the message. */
  envelopeText: string;
  /** The record's message exactly as received (never changed by a revision). */
  messageText: string;
  /** The record's category when it was claimed. */
  category: string;
}

export interface ClaimRequest {
  consumer: string;
  kinds: string[];
  limit: number;
  leaseSeconds: number;
}

export interface RenewRequest {
  consumer: string;
  replayIds: string[];
  leaseSeconds: number;
}

export interface ReplayOutcomeReport {
  outcome: "applied" | "duplicate-suppressed" | "routed" | "failed";
  detail?: string;
  reason?: string;
  requiredCheck?: string;
}

/**
 * `recorded`, or `refused` when the console no longer takes this consumer's word on the replay
 * (its claim ran out and another consumer took it over, or reported first).
 */
export type OutcomeReceipt = "recorded" | { refused: { code: string; message: string } };

export interface ReviewDesk {
  /** Writes (or joins) the review record of a held message; throws when it cannot be recorded. */
  report(held: HeldReport): Promise<{ id: string; attempts: number }>;
  claimReplays(request: ClaimRequest): Promise<ClaimedReplay[]>;
  /**
   * Extends the live claims this consumer still holds; answers those renewed with their new
   * expiry (one left out is no longer this consumer's). Optional: a desk without it lets claims
   * run their lease, as consoles before it did.
   */
  renewClaims?(request: RenewRequest): Promise<{ replayId: string; claimExpiresAt: Date }[]>;
  reportOutcome(replayId: string, report: ReplayOutcomeReport): Promise<OutcomeReceipt>;
}
