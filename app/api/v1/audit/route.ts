import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { listDecisions, auditListQuerySchema } from "@/lib/audit";
import { apiRoute, parseQuery } from "@/lib/http/route";

export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/audit",
    operationId: "listDecisions",
    summary: "Read the decision log",
    description: "Newest first (by `seq`), keyset pagination; filters combine (AND).",
    tag: "Decision log",
    access: { kind: "permission", permission: "audit.read" },
    query: auditListQuerySchema,
    answers: ok("A page of entries.", responses.auditPageSchema),
  },
  async ({ request }) => {
    const query = parseQuery(request, auditListQuerySchema);
    return Response.json(await listDecisions(query));
  },
);
