import { type Actor, grantsOf, domainsWhere, standingOf, domainOfColumn, domainsRefused } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, forbidden, notFound, Refusal } from "@/lib/domain/refusal";
import { isUuid } from "@/lib/domain/ids";
import { createOperationInTx } from "@/lib/operations";
import type { CreateOperationRequest } from "@/lib/operations";
import type { ActionRequest } from "@/lib/reviews";
import { performActionInTx } from "@/lib/actions/perform-action";
import {
  approvalLogDetails,
  type ApprovalRow,
  domainsOf,
  expireOverdue,
  isRequester,
  mayDecide,
  mayView,
  toView,
  requesterLost,
  withdrawRequest,
} from "@/lib/approvals";
import type { Tx } from "@/lib/db/client";
import type { Permission } from "@/lib/access/client";
import type { ApprovalView } from "@/lib/approvals";

/**
 * The request's author as they stand now (lib/access standingOf): the decision runs with their
 * current grants, never the role they had when they asked; null when they may no longer ask for
 * it (the reason, and the request is withdrawn by the caller). A requester this console cannot
 * look up (a legacy row) runs as stored, without grants beyond the role it asked with.
 */
async function requesterNow(tx: Tx, row: ApprovalRow): Promise<{ actor: Actor } | { lost: string }> {
  const standing = await standingOf(tx, `${row.requestedByKind}:${row.requestedById}`);
  if (!standing) {
    const stored = row.requestedByKind as Actor["kind"];
    return { actor: { kind: stored, id: row.requestedById, label: row.requestedBy, role: row.requestedRole } };
  }
  const lost = requesterLost(standing, row);
  return lost ? { lost } : { actor: standing.actor };
}

/**
 * The approver must hold the permission in every domain of what the approval created (an
 * operation's selection is frozen anew when it is approved, and may reach records in no domain).
 */
async function refuseApproverOutside(tx: Tx, row: ApprovalRow, operationId: string, approver: Actor) {
  const [op] = await tx.$queryRaw<{ domains: string[] }[]>`
    SELECT domains FROM bulk_operations WHERE id = ${operationId}::uuid`;
  const refused = domainsRefused(grantsOf(approver), row.permission as Permission, op?.domains ?? []);
  if (refused.length === 0) return;
  const named = refused.map((d) => (domainOfColumn(d) === null ? "records in no domain" : `domain ${d}`));
  throw forbidden(
    "approver-outside",
    `you may not ${row.permission} in ${named.join(", ")}, which the operation includes`,
    {
      details: { approvalId: row.id, permission: row.permission, domains: refused },
    },
  );
}

/**
 * The pending request, locked; an overdue one is expired first (that is committed, and the answer
 * is a 409). Refusals are returned, not thrown, when what the transaction did must be kept.
 */
async function lockPending(tx: Tx, id: string, decider: Actor): Promise<ApprovalRow | Refusal> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM approval_requests WHERE id = ${id}::uuid FOR UPDATE`;
  if (!locked[0]) throw notFound(`no approval request ${id}`);
  if (await expireOverdue(tx, { ids: [id] })) {
    return conflict("approval-expired", `approval request ${id} expired before it was answered`);
  }
  const row = (await tx.approvalRequest.findUnique({ where: { id } }))!;
  if (row.status !== "pending") throw conflict("already-decided", `approval request ${id} is already ${row.status}`);
  if (decider.kind !== "user") {
    throw forbidden("person-required", "only a person may approve or reject, not a token", {
      reviewId: row.reviewId,
      details: { approvalId: id },
    });
  }
  if (isRequester(row, decider)) {
    throw forbidden("own-request", "another person must approve or reject your own request", {
      reviewId: row.reviewId,
      details: { approvalId: id, rule: "four-eyes" },
    });
  }
  if (!mayDecide(row, decider)) {
    const where = domainsOf(row)
      .map((d) => d ?? "every domain")
      .join(", ");
    throw forbidden("forbidden", `you may not ${row.permission} in ${where}`, {
      reviewId: row.reviewId,
      details: { approvalId: id, permission: row.permission, domains: domainsOf(row) },
    });
  }
  return row;
}

/**
 * Approves and runs the stored decision, exactly once: the request row is locked, and its change
 * to `approved` commits with the decision itself. When the decision cannot run now (the record's
 * version moved, the gap closed), nothing of it stays: the request becomes `failed` with the
 * reason (`approval.failed`) and the answer is a 409.
 */
export async function approveRequest(id: string, reason: string, approver: Actor): Promise<ApprovalView> {
  if (!isUuid(id)) throw notFound(`no approval request ${id}`);
  const outcome = await db().$transaction(
    async (tx): Promise<ApprovalView | Refusal> => {
      const row = await lockPending(tx, id, approver);
      if (row instanceof Refusal) return row;
      const requester = await requesterNow(tx, row);
      if ("lost" in requester) {
        await withdrawRequest(tx, id, requester.lost);
        return conflict(
          "approval-withdrawn",
          `the request was withdrawn: ${requester.lost}; nothing ran (approval request ${id})`,
        );
      }
      const approved = { approvalId: row.id, requestedBy: row.requestedBy, approvedBy: approver.label };
      let operationId: string | null = null;
      await tx.$executeRaw`SAVEPOINT approval_run`;
      try {
        if (row.decision === "operation") {
          const created = await createOperationInTx(tx, row.request as CreateOperationRequest, requester.actor, {
            approved,
          });
          if ("operationId" in created) {
            operationId = created.operationId;
            await refuseApproverOutside(tx, row, operationId, approver);
          }
        } else {
          await performActionInTx(tx, row.reviewId!, row.request as ActionRequest, requester.actor, { approved });
        }
      } catch (error) {
        // Not this approver's to approve: nothing changes, the request waits for one who may.
        if (!(error instanceof Refusal) || error.code === "approver-outside") throw error;
        await tx.$executeRaw`ROLLBACK TO SAVEPOINT approval_run`;
        const stale = error.code === "stale-version";
        const failed = await tx.approvalRequest.update({
          where: { id },
          data: {
            status: "failed",
            decidedBy: approver.label,
            decidedById: approver.id,
            decidedReason: reason,
            decidedAt: new Date(),
            problem: error.message,
          },
        });
        await appendDecision(tx, {
          actor: approver.label,
          actorRole: approver.role,
          action: "approval.failed",
          reviewId: failed.reviewId,
          reason,
          details: approvalLogDetails(failed, { problem: error.message, code: error.code }),
        });
        return conflict(
          stale ? "approval-stale" : "approval-failed",
          stale
            ? `the record changed since the request (${error.message}); nothing ran, ask again`
            : `the decision could not run: ${error.message}; nothing ran`,
        );
      }
      const done = await tx.approvalRequest.update({
        where: { id },
        data: {
          status: "approved",
          decidedBy: approver.label,
          decidedById: approver.id,
          decidedReason: reason,
          decidedAt: new Date(),
          operationId,
        },
      });
      await appendDecision(tx, {
        actor: approver.label,
        actorRole: approver.role,
        action: "approval.approved",
        reviewId: done.reviewId,
        reason,
        details: approvalLogDetails(done),
      });
      return toView(done, approver);
    },
    { timeout: 120_000 },
  );
  if (outcome instanceof Refusal) throw outcome;
  return outcome;
}

/** Rejects: nothing but the request changes. */
export async function rejectRequest(id: string, reason: string, decider: Actor): Promise<ApprovalView> {
  if (!isUuid(id)) throw notFound(`no approval request ${id}`);
  const outcome = await db().$transaction(async (tx): Promise<ApprovalView | Refusal> => {
    const row = await lockPending(tx, id, decider);
    if (row instanceof Refusal) return row;
    const done = await tx.approvalRequest.update({
      where: { id },
      data: {
        status: "rejected",
        decidedBy: decider.label,
        decidedById: decider.id,
        decidedReason: reason,
        decidedAt: new Date(),
      },
    });
    await appendDecision(tx, {
      actor: decider.label,
      actorRole: decider.role,
      action: "approval.rejected",
      reviewId: done.reviewId,
      reason,
      details: approvalLogDetails(done),
    });
    return toView(done, decider);
  });
  if (outcome instanceof Refusal) throw outcome;
  return outcome;
}

/** GET /api/v1/approvals: newest first (at most 200), overdue ones expired first. */
export async function listApprovals(
  query: { status?: string; reviewId?: string },
  viewer: Actor,
): Promise<{ approvals: ApprovalView[]; waitingForYou: number }> {
  await db().$transaction((tx) => expireOverdue(tx, query.reviewId ? { reviewId: query.reviewId } : {}));
  const status = query.status ?? "pending";
  const rows = await db().approvalRequest.findMany({
    where: {
      ...(status === "all" ? {} : { status }),
      ...(query.reviewId ? { reviewId: query.reviewId } : {}),
      ...(await viewableIds(viewer, status === "all" ? null : status, query.reviewId)),
    },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  // Another domain's requests are not there for a scoped reader, as its records are not: left out
  // in SQL above, so the 200 are the newest they may see; mayView once more as the rule itself.
  const approvals = rows.filter((row) => mayView(row, viewer)).map((row) => toView(row, viewer));
  const waitingForYou =
    status === "pending" && !query.reviewId
      ? approvals.filter((a) => a.canDecide).length
      : await countWaitingFor(viewer);
  return { approvals, waitingForYou };
}

async function countWaitingFor(viewer: Actor): Promise<number> {
  const rows = await db().approvalRequest.findMany({
    where: { status: "pending", expiresAt: { gt: new Date() }, ...(await viewableIds(viewer, "pending")) },
    take: 1000,
  });
  return rows.filter((row) => row.expiresAt > new Date() && mayView(row, viewer) && mayDecide(row, viewer)).length;
}

/**
 * For a reader of some domains only, the ids of the requests they may see (mayView in SQL: the
 * request's one domain is theirs, or every domain it spans is; a request of no domain is for
 * global readers only), newest first, as a condition on the ids; nothing for a global reader.
 */
async function viewableIds(
  viewer: Actor,
  status: string | null,
  reviewId?: string,
): Promise<{ id?: { in: string[] } }> {
  const readable = domainsWhere(grantsOf(viewer), "reviews.read");
  if (readable === "all") return {};
  const rows = await db().$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM approval_requests
     WHERE (${status}::text IS NULL OR status = ${status}::text)
       AND (${reviewId ?? null}::uuid IS NULL OR review_id = ${reviewId ?? null}::uuid)
       AND CASE WHEN domain IS NOT NULL THEN domain = ANY(${readable}::text[])
                ELSE jsonb_array_length(domains) > 0 AND domains <@ to_jsonb(${readable}::text[]) END
     ORDER BY created_at DESC
     LIMIT 1000`;
  return { id: { in: rows.map((r) => r.id) } };
}

/** The periodic sweep (the console's dispatcher): every overdue request expired. */
export function sweepExpiredApprovals(): Promise<number> {
  return db().$transaction((tx) => expireOverdue(tx));
}
