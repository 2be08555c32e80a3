import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { assigneeIdOf, countReviews, reviewCountQuerySchema } from "@/lib/reviews";

/** GET /api/v1/reviews/count: how many records the list's filters select (capped unless `exact=true`). */
export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const { assignee, exact, ...filter } = parseQuery(request, reviewCountQuerySchema);
  const scope = await recordScope(grantsOf(actor));
  return Response.json(
    await countReviews({ ...filter, assigneeId: assigneeIdOf(assignee, actor) }, scope, { exact: exact === "true" }),
  );
});
