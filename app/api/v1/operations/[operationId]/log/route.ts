import * as responses from "@/lib/openapi/responses";
import { operationIdParams, ok, error } from "@/lib/openapi/parts";
import { listDecisions } from "@/lib/audit";
import { operationIdOf, requireOperation } from "@/lib/http/operation-routes";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { operationLogQuerySchema } from "@/lib/operations";

/** GET /api/v1/operations/{id}/log: the decision-log entries of the operation, newest first. */
export const GET = apiRoute<{ operationId: string }>(
  {
    method: "GET",
    route: "/api/v1/operations/[operationId]/log",
    operationId: "listOperationLog",
    summary: "The decision-log entries of an operation",
    description: "Newest first, like `GET /api/v1/audit?operationId=`.",
    tag: "Operations",
    access: { kind: "permission", permission: "audit.read" },
    params: operationIdParams,
    query: operationLogQuerySchema,
    answers: { ...ok("A page of entries.", responses.auditPageSchema), 404: error("No operation with this id.") },
  },
  async ({ request, params, actor }) => {
    const id = operationIdOf(params);
    const query = parseQuery(request, operationLogQuerySchema);
    await requireOperation(id, actor);
    return Response.json(await listDecisions({ ...query, operationId: id }));
  },
);
