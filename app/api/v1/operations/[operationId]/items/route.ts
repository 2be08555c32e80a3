import { ApiError } from "@/lib/http/errors";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { operationIdOf } from "@/lib/operations/route-support";
import { itemsQuerySchema } from "@/lib/operations/schema";
import { operationExists, listOperationItems } from "@/lib/operations/view";

/** GET /api/v1/operations/{id}/items: the frozen records in dispatch order, with verdict and outcome. */
export const GET = apiRoute<{ operationId: string }>("operations.read", async ({ request, params }) => {
  const id = operationIdOf(params);
  const query = parseQuery(request, itemsQuerySchema);
  if (!(await operationExists(id))) throw new ApiError(404, "not-found", `no operation ${id}`);
  return Response.json(await listOperationItems(id, query));
});
