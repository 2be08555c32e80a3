import { operationIdOf, operationResponse } from "@/lib/http/operation-routes";
import { apiRoute } from "@/lib/http/route";

/** GET /api/v1/operations/{id} */
export const GET = apiRoute<{ operationId: string }>("operations.read", async ({ actor, params }) =>
  operationResponse(operationIdOf(params), actor),
);
