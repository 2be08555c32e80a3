import * as responses from "@/lib/openapi/responses";
import { ok, json, error } from "@/lib/openapi/parts";
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
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/operations",
    operationId: "listOperations",
    summary: "List bulk operations",
    description: "Newest first, keyset pagination.",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    query: operationListQuerySchema,
    answers: ok("A page of operations.", responses.operationListSchema),
  },
  async ({ request, actor }) => {
    const query = parseQuery(request, operationListQuerySchema);
    return Response.json(await listOperations(query, grantsOf(actor)));
  },
);

/**
 * POST /api/v1/operations: freezes the selection into a planned operation (docs/operations.md); a
 * 202 with the approval request instead when an approval policy holds it back.
 */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/operations",
    operationId: "createOperation",
    summary: "Create a bulk operation",
    description:
      "Freezes the selection into a planned operation; nothing is dispatched before a dry run and a confirm.",
    tag: "Operations",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "A replay or cancel operation also needs `reviews.resolve` (owner); a note one `reviews.note`.",
    },
    body: createOperationSchema,
    answers: {
      ...ok("The planned operation.", responses.operationSchema, 201),
      ...ok(
        "An approval policy holds the operation back (its selection has more records than the policy's count): nothing was created; it waits as this approval request for another person.",
        responses.approvalAnswerBodySchema,
        202,
      ),
      409: {
        description:
          "`approval-pending`: an identical request (same action, same selection) already waits for approval; `approvalId` names it.",
        content: json(responses.duplicateApprovalSchema),
      },
      422: error("The selection names unknown records, matches none, or is larger than allowed."),
    },
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, createOperationSchema);
    const created = await createOrHoldOperation(data, actor, { approvalGate: operationApprovalGate(actor) });
    if ("approval" in created) return Response.json({ approval: created.approval }, { status: 202 });
    return operationResponse(created.operationId, actor, 201);
  },
);
