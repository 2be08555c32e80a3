import { grantsOf } from "@/lib/auth/actor";
import { operationResponse } from "@/lib/http/operation-routes";
import { apiRoute, parseJsonBody, parseQuery } from "@/lib/http/route";
import { createOperation } from "@/lib/operations/create";
import { createOperationSchema, operationListQuerySchema } from "@/lib/operations/schema";
import { listOperations } from "@/lib/operations/view";

/** GET /api/v1/operations: newest first, keyset pagination. */
export const GET = apiRoute("operations.read", async ({ request, actor }) => {
  const query = parseQuery(request, operationListQuerySchema);
  return Response.json(await listOperations(query, grantsOf(actor)));
});

/** POST /api/v1/operations: freezes the selection into a planned operation (docs/operations.md). */
export const POST = apiRoute("reviews.act", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, createOperationSchema);
  const id = await createOperation(data, actor);
  return operationResponse(id, actor, 201);
});
