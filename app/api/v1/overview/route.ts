import { apiRoute, parseQuery } from "@/lib/http/route";
import { overview, overviewQuerySchema } from "@/lib/overview/overview";

// Everyone who may read the queue may read its overview (owner, support, auditor, admin).
export const GET = apiRoute("reviews.read", async ({ request }) => {
  const query = parseQuery(request, overviewQuerySchema);
  return Response.json(await overview(query));
});
