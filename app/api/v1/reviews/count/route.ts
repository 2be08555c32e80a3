import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { assigneeIdOf, countReviews, reviewCountQuerySchema } from "@/lib/reviews";

/** GET /api/v1/reviews/count: how many records the list's filters select (capped unless `exact=true`). */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/reviews/count",
    operationId: "countReviews",
    summary: "How many records a filter selects",
    description:
      "The list's filters (no page). Up to 10,000 unless `exact=true`: past it, `more` is true and `count` is 10,000.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: reviewCountQuerySchema,
    answers: ok("The count.", responses.reviewCountSchema),
  },
  async ({ request, actor }) => {
    const { assignee, exact, ...filter } = parseQuery(request, reviewCountQuerySchema);
    const scope = await recordScope(grantsOf(actor));
    return Response.json(
      await countReviews({ ...filter, assigneeId: assigneeIdOf(assignee, actor) }, scope, { exact: exact === "true" }),
    );
  },
);
