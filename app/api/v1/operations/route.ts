import { grantsOf } from "@/lib/access";
import { operationResponse } from "@/lib/http/operation-routes";
import { apiRoute, parseJsonBody, parseQuery } from "@/lib/http/route";
import { operationApprovalGate } from "@/lib/actions";
import {
  createOrHoldOperation,
  createOperationSchema,
  operationListQuerySchema,
  listOperations,
} from "@/lib/operations";

/** GET /api/v1/operations: newest first, keyset pagination. */
export const GET = apiRoute("operations.read", async ({ request, actor }) => {
  const query = parseQuery(request, operationListQuerySchema);
  return Response.json(await listOperations(query, grantsOf(actor)));
});

/**
 * POST /api/v1/operations: freezes the selection into a planned operation (docs/operations.md); a
 * 202 with the approval request instead when an approval policy holds it back.
 */
export const POST = apiRoute("reviews.act", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, createOperationSchema);
  const created = await createOrHoldOperation(data, actor, { approvalGate: operationApprovalGate(actor) });
  if ("approval" in created) return Response.json({ approval: created.approval }, { status: 202 });
  return operationResponse(created.operationId, actor, 201);
});
