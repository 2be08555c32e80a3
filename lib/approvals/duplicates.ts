import type { Prisma } from "@/lib/generated/prisma/client";
import { conflict } from "@/lib/domain/refusal";

/**
 * A bulk operation held for approval is filed once: a second request for the same action on the
 * same selection, while the first still waits, is a 409 naming the one that waits (trying again
 * after "held for approval" must not put two identical requests before the approvers).
 */
export async function refuseDuplicateOperationRequest(
  tx: Prisma.TransactionClient,
  request: { action: string; selection: unknown },
): Promise<void> {
  const [existing] = await tx.$queryRaw<{ id: string; requestedBy: string }[]>`
    SELECT id::text AS id, requested_by AS "requestedBy" FROM approval_requests
     WHERE status = 'pending' AND decision = 'operation' AND expires_at > now()
       AND request->'action' = ${JSON.stringify(request.action)}::jsonb
       AND request->'selection' = ${JSON.stringify(request.selection)}::jsonb
     ORDER BY created_at LIMIT 1`;
  if (!existing) return;
  throw conflict(
    "approval-pending",
    `an identical ${request.action} request already waits for approval: ${existing.id} (requested by ${existing.requestedBy})`,
    { context: { approvalId: existing.id } },
  );
}
