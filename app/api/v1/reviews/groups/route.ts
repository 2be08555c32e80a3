import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { groupsQuerySchema, reviewGroups } from "@/lib/reviews";

export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/reviews/groups",
    operationId: "listReviewGroups",
    summary: "Records grouped by cause",
    description:
      "Kind + reason + error class, largest first, at most 200 groups. Without `status`, the active statuses.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: groupsQuerySchema,
    answers: ok("The groups.", responses.reviewGroupsSchema),
  },
  async ({ request, actor }) => {
    const query = parseQuery(request, groupsQuerySchema);
    return Response.json(await reviewGroups(query, await recordScope(grantsOf(actor))));
  },
);
