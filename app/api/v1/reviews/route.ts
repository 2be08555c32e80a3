import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { assigneeIdOf, listReviews, reviewListQuerySchema } from "@/lib/reviews";
import { reportReview } from "@/lib/http/intake-routes";

export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/reviews",
    operationId: "listReviews",
    summary: "List review records",
    description:
      "Newest first unless `sort` names another order (ties by id); keyset pagination (`nextCursor`, bound to its order); filters combine (AND).",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: reviewListQuerySchema,
    answers: ok("A page of records.", responses.reviewListSchema),
  },
  async ({ request, actor }) => {
    const { assignee, ...query } = parseQuery(request, reviewListQuerySchema);
    const scope = await recordScope(grantsOf(actor));
    return Response.json(await listReviews({ ...query, assigneeId: assigneeIdOf(assignee, actor) }, scope));
  },
);

// The handler lives in lib/http/intake-routes.ts: the console's own server answers bearer
// requests with it directly (lib/server/intake-fast-path.ts), so both ways in share one definition.
export const POST = reportReview;
