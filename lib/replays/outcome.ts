import { type Actor } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, forbidden, notFound } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import type { ReplayState } from "@/lib/generated/prisma/enums";
import { dbStatus } from "@/lib/actions";
import type { ReviewStatus } from "@/lib/reviews";
import { recordOperationOutcome } from "@/lib/operations";
import { claimHolder } from "./claim";
import type { OutcomeRequest } from "./schema";

/**
 * What a reported outcome did, as the outcome API answers it (`ok` included). Every "no" is a
 * thrown Refusal instead (lib/domain/refusal.ts).
 */
export interface OutcomeResult {
  ok: true;
  replayId: string;
  reviewId: string;
  recordStatus: ReviewStatus;
}

// A replay's outcome sets the record's final state (docs/contract.md): applied or suppressed as a
// duplicate resolve it; held again (routed) or failed send it back to open, one attempt more.
const RECORD_STATUS: Record<OutcomeRequest["outcome"], ReviewStatus> = {
  applied: "resolved",
  "duplicate-suppressed": "resolved",
  routed: "open",
  failed: "open",
};

export async function reportReplayOutcome(
  replayId: string,
  request: OutcomeRequest,
  actor: Actor,
): Promise<OutcomeResult> {
  return db().$transaction(async (tx) => {
    const rows = await tx.$queryRaw<
      {
        state: string;
        reviewId: string;
        effectKey: string | null;
        status: string;
        operationId: string | null;
        claimedBy: string | null;
        claimedByActor: string | null;
      }[]
    >`
      SELECT r.state::text AS state, r.review_id::text AS "reviewId", rr.effect_key AS "effectKey",
             rr.status::text AS status, r.operation_id::text AS "operationId",
             r.claimed_by AS "claimedBy", r.claimed_by_actor AS "claimedByActor"
        FROM replays r JOIN review_records rr ON rr.id = r.review_id
       WHERE r.id = ${replayId}::uuid FOR UPDATE OF r, rr`;
    const replay = rows[0];
    if (!replay) throw notFound(`no replay ${replayId}`);
    if (replay.state !== "claimed") {
      throw conflict("not-claimed", `replay ${replayId} is ${replay.state}, not claimed`);
    }
    // Whoever holds the claim ran the replay; anyone else's word on its outcome would decide the
    // record's fate without having run it (a forged "applied" would resolve a record whose
    // effect never happened). Checked under the row lock, so a re-claim cannot slip in between.
    if (replay.claimedByActor !== claimHolder(actor)) {
      // Thrown before any write, so the replay and its record stay as they were. The reason
      // names no ids, so a flood of such refusals coalesces (lib/audit/refusal-log.ts).
      throw forbidden(
        "not-claim-holder",
        `replay ${replayId} is claimed by another consumer; only the claim holder may report its outcome`,
        {
          reason: "the replay is claimed by another consumer; only the claim holder reports its outcome",
          reviewId: replay.reviewId,
          effectKey: replay.effectKey,
          details: {
            rule: "claim-holder",
            replayId,
            outcome: request.outcome,
            // Who holds it, for the auditor (an id, no secret); the caller's answer leaves it out.
            claimedBy: replay.claimedBy,
            claimHolder: replay.claimedByActor,
            ...(replay.operationId ? { operationId: replay.operationId } : {}),
          },
        },
      );
    }
    const recordStatus = RECORD_STATUS[request.outcome];
    const heldAgain = recordStatus === "open";
    await tx.replay.update({
      where: { id: replayId },
      data: {
        state: request.outcome.replaceAll("-", "_") as ReplayState,
        detail: request.detail ?? null,
        completedAt: new Date(),
        claimExpiresAt: null,
      },
    });
    // Held again, the record counts one attempt more and takes the new reason, check and error.
    const again = heldAgain
      ? Prisma.sql`attempts = attempts + 1, last_seen_at = now(),
          reason = COALESCE(${request.reason ?? null}, reason),
          required_check = COALESCE(${request.requiredCheck ?? null}, required_check),
          last_error = COALESCE(${request.detail ?? null}, last_error),
          error_class = CASE WHEN ${request.detail ?? null}::text IS NULL THEN error_class
                             ELSE review_error_class(${request.detail ?? null}) END,`
      : Prisma.empty;
    await tx.$executeRaw`
      UPDATE review_records SET ${again} status = ${recordStatus}::"ReviewStatus", version = version + 1,
             updated_at = now()
       WHERE id = ${replay.reviewId}::uuid`;
    const details = { replayId, outcome: request.outcome, detail: request.detail ?? null };
    await tx.reviewHistory.create({
      data: {
        reviewId: replay.reviewId,
        actor: actor.label,
        action: `replay-${request.outcome}`,
        fromStatus: dbStatus(replay.status as ReviewStatus),
        toStatus: dbStatus(recordStatus),
        reason: request.reason ?? null,
        details,
      },
    });
    const operationEntries = await recordOperationOutcome(tx, replayId, request.outcome, request.detail ?? null);
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: `replay.${request.outcome}`,
      reviewId: replay.reviewId,
      effectKey: replay.effectKey,
      reason: request.reason ?? null,
      details: { ...details, recordStatus, ...(replay.operationId ? { operationId: replay.operationId } : {}) },
    });
    for (const entry of operationEntries) await appendDecision(tx, entry);
    return { ok: true, replayId, reviewId: replay.reviewId, recordStatus };
  });
}
