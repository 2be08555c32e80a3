import * as responses from "@/lib/openapi/responses";
import { operationIdParams, ok, error } from "@/lib/openapi/parts";
import { operationIdOf, requireOperation } from "@/lib/http/operation-routes";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { itemsQuerySchema, listOperationItems } from "@/lib/operations";

/** GET /api/v1/operations/{id}/items: the frozen records in dispatch order, with verdict and outcome. */
export const GET = apiRoute<{ operationId: string }>(
  {
    method: "GET",
    route: "/api/v1/operations/[operationId]/items",
    operationId: "listOperationItems",
    summary: "The records of an operation",
    description: "In dispatch order, with verdict and outcome; keyset pagination.",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    params: operationIdParams,
    query: itemsQuerySchema,
    answers: { ...ok("A page of items.", responses.operationItemsSchema), 404: error("No operation with this id.") },
  },
  async ({ request, params, actor }) => {
    const id = operationIdOf(params);
    const query = parseQuery(request, itemsQuerySchema);
    await requireOperation(id, actor);
    return Response.json(await listOperationItems(id, query));
  },
);
