import { ApiError } from "@/lib/http/errors";
import { apiRoute } from "@/lib/http/route";
import { getReview } from "@/lib/reviews/detail";
import { detailResponse } from "@/lib/reviews/detail-response";
import { isUuid } from "@/lib/domain/ids";

export const GET = apiRoute<{ id: string }>("reviews.read", async ({ params }) => {
  // Anything that is not a UUID cannot name a record: a 404, not a database type error.
  const record = isUuid(params.id) ? await getReview(params.id) : null;
  if (!record) throw new ApiError(404, "not-found", `no review record ${params.id}`);
  return detailResponse(record);
});
