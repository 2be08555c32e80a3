import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { detailResponse } from "@/lib/http/review-responses";
import { apiRoute } from "@/lib/http/route";
import { archivedRecordRefusal } from "@/lib/retention/finished-lookup";
import { getReview } from "@/lib/reviews/detail";

export const GET = apiRoute<{ id: string }>("reviews.read", async ({ params }) => {
  // Anything that is not a UUID cannot name a record: a 404, not a database type error.
  const record = isUuid(params.id) ? await getReview(params.id) : null;
  if (!record) {
    // An archived record is gone from the live tables: the 404 names its archive file.
    throw (isUuid(params.id) && (await archivedRecordRefusal(params.id))) || notFound(`no review record ${params.id}`);
  }
  return detailResponse(record);
});
