import { grantsOf } from "@/lib/access";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { overview, overviewQuerySchema } from "@/lib/overview";

// Everyone who may read the queue may read its overview (owner, support, auditor, admin), over
// the records of their domains (ADR 0030).
export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const query = parseQuery(request, overviewQuerySchema);
  return Response.json(await overview(query, new Date(), grantsOf(actor)));
});
