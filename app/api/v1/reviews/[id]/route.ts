import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { detailResponse } from "@/lib/http/review-responses";
import { apiRoute } from "@/lib/http/route";
import { getReview } from "@/lib/reviews/detail";

export const GET = apiRoute<{ id: string }>("reviews.read", async ({ params }) => {
  // Anything that is not a UUID cannot name a record: a 404, not a database type error.
  const record = isUuid(params.id) ? await getReview(params.id) : null;
  if (!record) throw notFound(`no review record ${params.id}`);
  return detailResponse(record);
});
