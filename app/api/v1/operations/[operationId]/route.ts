import { apiRoute } from "@/lib/http/route";
import { operationIdOf, operationResponse } from "@/lib/operations/route-support";

/** GET /api/v1/operations/{id} */
export const GET = apiRoute<{ operationId: string }>("operations.read", async ({ actor, params }) =>
  operationResponse(operationIdOf(params), actor),
);
