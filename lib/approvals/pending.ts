import { conflict, type Refusal } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import { effectivePolicy } from "./policies";
import { isApprovableAction } from "./schema";
import type { Tx } from "@/lib/db/client";

// What four eyes mean for every path that reaches a record, not only the action that asked
// (docs/decisions/0037-one-access-module.md):
// - a record with a pending approval request is not changed by anything else while it waits
//   (a note or an assignment, which decide nothing about the record, still go: a note moves the
//   version, and the request then fails as stale when approved);
// - a replay of such a record is not claimed while it waits (the claim would start the effect the
//   pending decision may cancel, and the decision would then fail as stale);
// - a bulk operation takes an action that a per-record policy holds back only when the
//   operation itself was approved by a second person.

/** Actions that change nothing a pending decision depends on. */
const BESIDE_A_PENDING_REQUEST = new Set(["note", "assign"]);

export interface PendingRequest {
  reviewId: string;
  id: string;
  decision: string;
}

/** A request that still waits: pending and not yet overdue (`a` is approval_requests' alias). */
export const PENDING_REQUEST = Prisma.sql`a.status = 'pending' AND a.expires_at > now()`;

/** The pending (not yet overdue) request of each of `reviewIds` that has one. */
export async function pendingRequestsOf(tx: Tx, reviewIds: readonly string[]): Promise<Map<string, PendingRequest>> {
  if (reviewIds.length === 0) return new Map();
  const rows = await tx.$queryRaw<PendingRequest[]>`
    SELECT review_id::text AS "reviewId", id::text AS id, decision FROM approval_requests a
     WHERE ${PENDING_REQUEST} AND a.review_id = ANY(${[...reviewIds]}::uuid[])`;
  return new Map(rows.map((r) => [r.reviewId, r]));
}

/** The 409 for acting on a record whose `pending` request waits (the direct action's answer too). */
export function pendingRefusal(pending: PendingRequest): Refusal {
  return conflict(
    "approval-pending",
    `a ${pending.decision} of this record waits for approval (${pending.id}); it must be approved, rejected or expire first`,
  );
}

/**
 * The refusal of `action` on a record while a request for it waits, or null. `running` is the
 * request being approved now (its own decision runs).
 */
export async function pendingRequestRefusal(
  tx: Tx,
  reviewId: string,
  action: string,
  running?: string,
): Promise<Refusal | null> {
  if (BESIDE_A_PENDING_REQUEST.has(action)) return null;
  const pending = (await pendingRequestsOf(tx, [reviewId])).get(reviewId);
  return pending && pending.id !== running ? pendingRefusal(pending) : null;
}

/** Does `action` wait for a second person on records of `domain` (a per-record policy)? */
export async function recordPolicyHolds(tx: Tx, action: string, domain: string | null): Promise<boolean> {
  return isApprovableAction(action) && (await effectivePolicy(tx, action, domain)) !== null;
}

/** Was operation `operationId` created by a second person's approval? */
export async function operationApproved(tx: Tx, operationId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>`
    SELECT 1 FROM approval_requests WHERE operation_id = ${operationId}::uuid AND status = 'approved'`;
  return rows.length > 0;
}

/**
 * Why a bulk operation may not take `action` on a record of `domain` now, or null: a per-record
 * policy holds the action back and no second person approved the operation.
 */
export async function operationItemRefusal(
  tx: Tx,
  operationId: string,
  action: string,
  domain: string | null,
): Promise<Refusal | null> {
  if (!(await recordPolicyHolds(tx, action, domain))) return null;
  if (await operationApproved(tx, operationId)) return null;
  const where = domain === null ? "records in no domain" : `domain ${domain}`;
  return conflict(
    "approval-required",
    `a ${action} in ${where} needs a second person's approval, and this operation was not approved`,
  );
}
