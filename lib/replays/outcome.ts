import type { Actor } from "@/lib/auth/actor";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { recordRefusal } from "@/lib/http/refusal-log";
import type { ReplayState } from "@/lib/generated/prisma/enums";
import { dbStatus } from "@/lib/reviews/detail";
import type { ReviewStatus } from "@/lib/reviews/schema";
import { recordOperationOutcome } from "@/lib/operations/items-state";
import { claimHolder } from "./claim";
import type { OutcomeRequest } from "./schema";

export type OutcomeResult =
  | { ok: true; replayId: string; reviewId: string; recordStatus: ReviewStatus }
  | { ok: false; status: 403 | 404 | 409; code: string; message: string };

// A replay's outcome sets the record's final state (CONTRACT.md): applied or suppressed as a
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
    const rows = await tx.$queryRawUnsafe<
      {
        state: string;
        review_id: string;
        effect_key: string | null;
        status: string;
        operation_id: string | null;
        claimed_by: string | null;
        claimed_by_actor: string | null;
      }[]
    >(
      `SELECT r.state::text, r.review_id::text, rr.effect_key, rr.status::text, r.operation_id::text,
              r.claimed_by, r.claimed_by_actor
         FROM replays r JOIN review_records rr ON rr.id = r.review_id
        WHERE r.id = $1::uuid FOR UPDATE OF r, rr`,
      replayId,
    );
    const replay = rows[0];
    if (!replay) return { ok: false, status: 404, code: "not-found", message: `no replay ${replayId}` };
    if (replay.state !== "claimed") {
      return {
        ok: false,
        status: 409,
        code: "not-claimed",
        message: `replay ${replayId} is ${replay.state}, not claimed`,
      };
    }
    // Whoever holds the claim ran the replay; anyone else's word on its outcome would decide the
    // record's fate without having run it (a forged "applied" would resolve a record whose
    // effect never happened). Checked under the row lock, so a re-claim cannot slip in between.
    if (replay.claimed_by_actor !== claimHolder(actor)) {
      // The refusal is the transaction's only write: the replay and its record stay as they were.
      // The reason names no ids, so a flood of such refusals coalesces (lib/http/refusal-log.ts).
      await recordRefusal(
        {
          actor,
          route: "POST /api/v1/replays/[replayId]/outcome",
          reason: "the replay is claimed by another consumer; only the claim holder reports its outcome",
          reviewId: replay.review_id,
          effectKey: replay.effect_key,
          details: {
            rule: "claim-holder",
            replayId,
            outcome: request.outcome,
            // Who holds it, for the auditor (an id, no secret); the caller's answer leaves it out.
            claimedBy: replay.claimed_by,
            claimHolder: replay.claimed_by_actor,
            ...(replay.operation_id ? { operationId: replay.operation_id } : {}),
          },
        },
        tx,
      );
      return {
        ok: false,
        status: 403,
        code: "not-claim-holder",
        message: `replay ${replayId} is claimed by another consumer; only the claim holder may report its outcome`,
      };
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
    await tx.$executeRawUnsafe(
      `UPDATE review_records SET status = $2::"ReviewStatus", version = version + 1, updated_at = now(),
              attempts = attempts + $3, last_seen_at = CASE WHEN $3 = 1 THEN now() ELSE last_seen_at END,
              reason = COALESCE($4, reason), required_check = COALESCE($5, required_check),
              last_error = COALESCE($6, last_error)
        WHERE id = $1::uuid`,
      replay.review_id,
      recordStatus,
      heldAgain ? 1 : 0,
      heldAgain ? (request.reason ?? null) : null,
      heldAgain ? (request.requiredCheck ?? null) : null,
      heldAgain ? (request.detail ?? null) : null,
    );
    const details = { replayId, outcome: request.outcome, detail: request.detail ?? null };
    await tx.reviewHistory.create({
      data: {
        reviewId: replay.review_id,
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
      reviewId: replay.review_id,
      effectKey: replay.effect_key,
      reason: request.reason ?? null,
      details: { ...details, recordStatus, ...(replay.operation_id ? { operationId: replay.operation_id } : {}) },
    });
    for (const entry of operationEntries) await appendDecision(tx, entry);
    return { ok: true, replayId, reviewId: replay.review_id, recordStatus };
  });
}
