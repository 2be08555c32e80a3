import { grantsOf, type Actor, domainsWhere } from "@/lib/access";
import { PENDING_REQUEST } from "@/lib/approvals";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { stringifyWithRaw } from "@review-console/contract";
import type { ClaimedReplay } from "@review-console/consumer";
import type { ClaimRequest } from "./schema";

/** One claimed replay: the consumer package's own type, which the console hands out. */
export type { ClaimedReplay };

export const DEFAULT_CLAIM_LIMIT = 10;
export const DEFAULT_LEASE_SECONDS = 60;

/**
 * Who holds a claim: the authenticated actor's kind and id, stable and distinct even when two
 * tokens share a name (the label, `token:<name>`, may not be). The consumer name in the request
 * is the claimer's own choice, so it proves nothing.
 */
export function claimHolder(actor: Actor): string {
  return `${actor.kind}:${actor.id}`;
}

/**
 * Claims due replays for one consumer, each envelope as its stored text. A replay is due when its
 * time has come, or when an earlier claim was abandoned (its lease ran out). Within a sequence
 * key, replays go one at a time in sequence order: a replay waits while an earlier one of its key
 * is unfinished or another of its key is claimed. SKIP LOCKED lets consumers claim side by side
 * without taking one twice. The claim records `actor` as its holder: only the same actor may
 * report the outcome.
 */
export async function claimDueReplays(request: ClaimRequest, actor: Actor): Promise<ClaimedReplay[]> {
  const consumer = request.consumer;
  const kinds = request.kinds ?? null;
  // A scoped token claims only replays of its domains' kinds (ADR 0029); an unscoped claim's
  // statement is unchanged.
  const where = domainsWhere(grantsOf(actor), "replays.claim");
  const domains = where === "all" ? null : where;
  return db().$queryRaw<ClaimedReplay[]>`
WITH due AS (
  SELECT r.id
    FROM replays r
    JOIN review_records rr ON rr.id = r.review_id
   WHERE ((r.state = 'scheduled' AND r.run_at <= now())
          OR (r.state = 'claimed' AND r.claim_expires_at < now()))
     AND (${kinds}::text[] IS NULL OR rr.kind = ANY(${kinds}::text[]))
     ${domains === null ? Prisma.empty : Prisma.sql`AND domain_of_kind(rr.kind) = ANY(${domains}::text[])`}
     -- A paused bulk operation holds back its replays that no consumer has taken yet.
     AND (r.operation_id IS NULL OR NOT EXISTS (
       SELECT 1 FROM bulk_operations op WHERE op.id = r.operation_id AND op.state = 'paused'))
     -- A record whose decision waits for a second person is changed by nothing else meanwhile
     -- (lib/approvals/pending.ts): its replay waits too.
     AND NOT EXISTS (SELECT 1 FROM approval_requests a WHERE a.review_id = r.review_id AND ${PENDING_REQUEST})
     AND NOT EXISTS (
       SELECT 1 FROM replays o
        WHERE o.sequence_key = r.sequence_key AND o.id <> r.id
          AND o.state IN ('scheduled', 'claimed')
          AND (o.sequence < r.sequence OR (o.state = 'claimed' AND o.claim_expires_at >= now())))
   ORDER BY r.run_at, r.sequence
   LIMIT ${request.limit ?? DEFAULT_CLAIM_LIMIT}
   FOR UPDATE OF r SKIP LOCKED
), claimed AS (
  UPDATE replays SET state = 'claimed', claimed_by = ${consumer}, claimed_by_actor = ${claimHolder(actor)},
         claims = claims + 1,
         claim_expires_at = now() + make_interval(secs => ${request.leaseSeconds ?? DEFAULT_LEASE_SECONDS})
    FROM due WHERE replays.id = due.id
  RETURNING replays.id, replays.review_id, replays.revision_number, replays.claim_expires_at
), records AS (
  UPDATE review_records rr SET status = 'replaying', updated_at = now(), version = version + 1
    FROM claimed WHERE rr.id = claimed.review_id AND rr.status <> 'replaying'
  RETURNING rr.id
), history AS (
  INSERT INTO review_history (review_id, actor, action, to_status, details)
  SELECT claimed.review_id, ${actor.label}, 'replay-claimed', 'replaying',
         jsonb_build_object('replayId', claimed.id, 'consumer', ${consumer}::text)
    FROM claimed
)
SELECT c.id::text AS "replayId", c.review_id::text AS "reviewId", c.revision_number AS "revisionNumber",
       c.claim_expires_at AS "claimExpiresAt",
       COALESCE(rev.envelope::text, rr.message::text) AS "envelopeText", rr.message::text AS "messageText",
       rr.category::text AS category
  FROM claimed c
  JOIN review_records rr ON rr.id = c.review_id
  LEFT JOIN review_revisions rev ON rev.review_id = c.review_id AND rev.number = c.revision_number`;
}

/**
 * The claimed replays as JSON text: each envelope exactly as stored (same id, same effectKey),
 * and the record's category and message as received, which a consumer needs when the replay is
 * held again for another reason (it reports the record's own message with the new category).
 */
export async function claimReplays(request: ClaimRequest, actor: Actor): Promise<string> {
  const items = (await claimDueReplays(request, actor)).map((item) =>
    stringifyWithRaw(
      {
        replayId: item.replayId,
        reviewId: item.reviewId,
        revisionNumber: item.revisionNumber,
        claimExpiresAt: item.claimExpiresAt.toISOString(),
        category: item.category,
      },
      { envelope: item.envelopeText, message: item.messageText },
    ),
  );
  return `{"items":[${items.join(",")}]}`;
}

/** One renewed claim: until when it now holds. */
export interface RenewedClaim {
  replayId: string;
  claimExpiresAt: Date;
}

/**
 * Extends the claims `actor` still holds under the consumer name `consumer` by `leaseSeconds`
 * from now: a live worker working through a batch keeps what it claimed, so a lease that runs out
 * means a worker that is gone, never one that is slow (a second worker took over replays a loaded
 * but live first one still held). Only live claims are renewed: one that already ran out may have
 * been taken over, and its first holder must let it go. Ids it does not hold are left out of the
 * answer; renewing is not a decision, so nothing is logged.
 */
export async function renewClaims(
  request: { consumer: string; replayIds: string[]; leaseSeconds?: number },
  actor: Actor,
): Promise<RenewedClaim[]> {
  if (request.replayIds.length === 0) return [];
  return db().$queryRaw<RenewedClaim[]>`
UPDATE replays SET claim_expires_at = now() + make_interval(secs => ${request.leaseSeconds ?? DEFAULT_LEASE_SECONDS})
 WHERE id = ANY(${request.replayIds}::uuid[])
   AND state = 'claimed' AND claimed_by = ${request.consumer} AND claimed_by_actor = ${claimHolder(actor)}
   AND claim_expires_at >= now()
RETURNING id::text AS "replayId", claim_expires_at AS "claimExpiresAt"`;
}
