import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { assigneeIdOf, listReviews, reviewListQuerySchema } from "@/lib/reviews";
import { reportReview } from "@/lib/http/intake-routes";

export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const { assignee, ...query } = parseQuery(request, reviewListQuerySchema);
  const scope = await recordScope(grantsOf(actor));
  return Response.json(await listReviews({ ...query, assigneeId: assigneeIdOf(assignee, actor) }, scope));
});

// The handler lives in lib/http/intake-routes.ts: the console's own server answers bearer
// requests with it directly (lib/server/intake-fast-path.ts), so both ways in share one definition.
export const POST = reportReview;
