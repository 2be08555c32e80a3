import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { overview, overviewQuerySchema } from "@/lib/overview";

// Everyone who may read the queue may read its overview (owner, support, auditor, admin), over
// the records of their domains (ADR 0030).
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/overview",
    operationId: "getOverview",
    summary: "The overview: arrivals, open records, time to resolution, operations in flight",
    description:
      "Arrivals per hour (24h) or day (7d, 30d) by category, reason and kind; open records by category; the oldest open record; time to resolution (p50/p95) per cause; live bulk operations.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: overviewQuerySchema,
    answers: ok("The overview of the window.", responses.overviewSchema),
  },
  async ({ request, actor }) => {
    const query = parseQuery(request, overviewQuerySchema);
    return Response.json(await overview(query, new Date(), grantsOf(actor)));
  },
);
