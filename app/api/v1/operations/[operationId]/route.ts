import * as responses from "@/lib/openapi/responses";
import { operationIdParams, ok, error } from "@/lib/openapi/parts";
import { operationIdOf, operationResponse } from "@/lib/http/operation-routes";
import { apiRoute } from "@/lib/http/route";

/** GET /api/v1/operations/{id} */
export const GET = apiRoute<{ operationId: string }>(
  {
    method: "GET",
    route: "/api/v1/operations/[operationId]",
    operationId: "getOperation",
    summary: "One bulk operation",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    params: operationIdParams,
    answers: {
      ...ok("The operation; `controls` are what the caller may do now.", responses.operationSchema),
      404: error("No operation with this id."),
    },
  },
  async ({ actor, params }) => operationResponse(operationIdOf(params), actor),
);
