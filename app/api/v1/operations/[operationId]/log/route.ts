import { listDecisions } from "@/lib/audit";
import { operationIdOf, requireOperation } from "@/lib/http/operation-routes";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { operationLogQuerySchema } from "@/lib/operations";

/** GET /api/v1/operations/{id}/log: the decision-log entries of the operation, newest first. */
export const GET = apiRoute<{ operationId: string }>("audit.read", async ({ request, params, actor }) => {
  const id = operationIdOf(params);
  const query = parseQuery(request, operationLogQuerySchema);
  await requireOperation(id, actor);
  return Response.json(await listDecisions({ ...query, operationId: id }));
});
