import type { Actor } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, forbidden, notFound } from "@/lib/domain/refusal";
import { isUuid } from "@/lib/domain/ids";
import { approvalLogDetails, expireOverdue, isRequester, mayView, toView } from "./store";
import type { ApprovalView } from "./view";

/**
 * The requester takes back their own pending request: it becomes `withdrawn`, nothing of the
 * decision runs, and `approval.withdrawn` is logged with their reason. Only the requester may:
 * anyone else answers it (approve or reject) instead.
 */
export async function withdrawOwnRequest(id: string, reason: string, requester: Actor): Promise<ApprovalView> {
  if (!isUuid(id)) throw notFound(`no approval request ${id}`);
  return db().$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM approval_requests WHERE id = ${id}::uuid FOR UPDATE`;
    if (!locked[0]) throw notFound(`no approval request ${id}`);
    await expireOverdue(tx, { ids: [id] });
    const row = (await tx.approvalRequest.findUnique({ where: { id } }))!;
    // One the caller may not even see is not there for them (as in the list).
    if (!mayView(row, requester)) throw notFound(`no approval request ${id}`);
    if (!isRequester(row, requester)) {
      throw forbidden("not-requester", "only whoever asked may withdraw a request; approve or reject it instead", {
        reviewId: row.reviewId,
        details: { approvalId: id },
      });
    }
    if (row.status !== "pending") throw conflict("already-decided", `approval request ${id} is already ${row.status}`);
    const done = await tx.approvalRequest.update({
      where: { id },
      data: {
        status: "withdrawn",
        decidedBy: requester.label,
        decidedById: requester.id,
        decidedReason: reason,
        decidedAt: new Date(),
      },
    });
    await appendDecision(tx, {
      actor: requester.label,
      actorRole: requester.role,
      action: "approval.withdrawn",
      reviewId: done.reviewId,
      reason,
      details: approvalLogDetails(done),
    });
    return toView(done, requester);
  });
}
