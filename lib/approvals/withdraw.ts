import type { Permission } from "@/lib/access/client";
import { appendDecision } from "@/lib/audit";
import { type Standing, may } from "@/lib/access";
import { APPROVALS_SYSTEM, approvalLogDetails, type ApprovalRow, domainsOf } from "./store";
import type { Tx } from "@/lib/db/client";

// A request runs on its requester's authority as it is when it is approved, not as it was when
// they asked: a requester disabled, revoked, expired or no longer holding the permission in every
// domain of the request may no longer ask for it, and the request is withdrawn.

/** Why the requester may no longer ask for `row`, or null while they may. */
export function requesterLost(standing: Standing, row: Pick<ApprovalRow, "permission" | "domain" | "domains">) {
  if (standing.gone) return standing.gone;
  const { actor } = standing;
  const refused = domainsOf(row).filter((domain) => !may(actor, row.permission as Permission, { domain }));
  if (refused.length === 0) return null;
  const where = refused.map((d) => (d === null ? "every domain" : `domain ${d}`)).join(", ");
  return `${actor.label} may no longer ${row.permission} in ${where}`;
}

/** Marks the (locked, pending) request withdrawn with its `approval.withdrawn` entry. */
export async function withdrawRequest(tx: Tx, id: string, because: string): Promise<ApprovalRow> {
  const row = await tx.approvalRequest.update({
    where: { id },
    data: { status: "withdrawn", decidedAt: new Date(), problem: because },
  });
  await appendDecision(tx, {
    actor: APPROVALS_SYSTEM,
    action: "approval.withdrawn",
    reviewId: row.reviewId,
    reason: `withdrawn: ${because}`,
    details: approvalLogDetails(row, { rule: "requester-lost-authority" }),
  });
  return row;
}

/**
 * After a change to the person or token of `standing` (disabled, role changed, grant revoked,
 * token revoked) inside `tx`: their pending requests they may no longer ask for, locked, each
 * with why (`cause` says who changed what and why). The caller withdraws them (withdrawRequest)
 * once it appends to the decision log: rows are locked before the log's head, as an approval does.
 */
export async function findLostRequests(
  tx: Tx,
  standing: Standing,
  cause: string,
): Promise<{ id: string; because: string }[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM approval_requests
     WHERE status = 'pending' AND requested_by_kind = ${standing.actor.kind} AND requested_by_id = ${standing.actor.id}
     ORDER BY created_at FOR UPDATE`;
  const lost: { id: string; because: string }[] = [];
  for (const { id } of rows) {
    const row = (await tx.approvalRequest.findUnique({ where: { id } }))!;
    const because = requesterLost(standing, row);
    if (because) lost.push({ id, because: `${because} (${cause})` });
  }
  return lost;
}
