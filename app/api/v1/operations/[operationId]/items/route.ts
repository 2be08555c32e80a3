import { operationIdOf, requireOperation } from "@/lib/http/operation-routes";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { itemsQuerySchema, listOperationItems } from "@/lib/operations";

/** GET /api/v1/operations/{id}/items: the frozen records in dispatch order, with verdict and outcome. */
export const GET = apiRoute<{ operationId: string }>("operations.read", async ({ request, params, actor }) => {
  const id = operationIdOf(params);
  const query = parseQuery(request, itemsQuerySchema);
  await requireOperation(id, actor);
  return Response.json(await listOperationItems(id, query));
});
