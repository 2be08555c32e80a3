import { apiRoute, parseQuery } from "@/lib/http/route";
import { reportReview } from "@/lib/reviews/intake-routes";
import { listReviews } from "@/lib/reviews/list";
import { listQuerySchema } from "@/lib/reviews/schema";

export const GET = apiRoute("reviews.read", async ({ request }) => {
  const query = parseQuery(request, listQuerySchema);
  return Response.json(await listReviews(query));
});

// The handler lives in lib/reviews/intake-routes.ts: the console's own server answers bearer
// requests with it directly (lib/net/intake-fast-path.ts), so both ways in share one definition.
export const POST = reportReview;
