import { ApiError } from "@/lib/http/errors";
import { stringifyWithRaw } from "@/lib/http/raw-json";
import { apiRoute } from "@/lib/http/route";
import { getReview } from "@/lib/reviews/detail";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const GET = apiRoute<{ id: string }>("reviews.read", async ({ params }) => {
  // Anything that is not a UUID cannot name a record: a 404, not a database type error.
  const record = UUID.test(params.id) ? await getReview(params.id) : null;
  if (!record) throw new ApiError(404, "not-found", `no review record ${params.id}`);
  // `message` is spliced in as the stored text: parsing and re-serialising it would reorder
  // integer-like keys and round big numbers. `messageText` carries the same text as a string,
  // for clients (the console) that show it as received rather than as their parser rebuilt it.
  return new Response(stringifyWithRaw(record, { message: record.messageText }), {
    headers: { "content-type": "application/json" },
  });
});
