import { listDecisions } from "@/lib/audit/list";
import { ApiError } from "@/lib/http/errors";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { operationIdOf } from "@/lib/operations/route-support";
import { operationLogQuerySchema } from "@/lib/operations/schema";
import { operationExists } from "@/lib/operations/view";

/** GET /api/v1/operations/{id}/log: the decision-log entries of the operation, newest first. */
export const GET = apiRoute<{ operationId: string }>("audit.read", async ({ request, params }) => {
  const id = operationIdOf(params);
  const query = parseQuery(request, operationLogQuerySchema);
  if (!(await operationExists(id))) throw new ApiError(404, "not-found", `no operation ${id}`);
  return Response.json(await listDecisions({ ...query, operationId: id }));
});
