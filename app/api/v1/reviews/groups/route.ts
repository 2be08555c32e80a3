import { apiRoute, parseQuery } from "@/lib/http/route";
import { groupsQuerySchema, reviewGroups } from "@/lib/reviews/groups";

export const GET = apiRoute("reviews.read", async ({ request }) => {
  const query = parseQuery(request, groupsQuerySchema);
  return Response.json(await reviewGroups(query));
});
