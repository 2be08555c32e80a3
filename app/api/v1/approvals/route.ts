import { listApprovals } from "@/lib/actions";
import { approvalListQuerySchema } from "@/lib/approvals";
import { apiRoute, parseQuery } from "@/lib/http/route";

/** GET /api/v1/approvals?status=&reviewId=: the requests, and how many wait for the caller. */
export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const query = parseQuery(request, approvalListQuerySchema);
  return Response.json(await listApprovals(query, actor));
});
