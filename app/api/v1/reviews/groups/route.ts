import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { groupsQuerySchema, reviewGroups } from "@/lib/reviews";

export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const query = parseQuery(request, groupsQuerySchema);
  return Response.json(await reviewGroups(query, await recordScope(grantsOf(actor))));
});
