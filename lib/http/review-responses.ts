import { Refusal } from "@/lib/domain/refusal";
import type { Grant } from "@/lib/access";
import { getReview, type ReviewDetail } from "@/lib/actions";
import { withParsedMessage } from "@/lib/reviews";
import { stringifyWithRaw } from "@review-console/contract";

/**
 * A record as JSON. `message` is spliced in as the stored text: parsing and re-serialising it
 * would reorder integer-like keys and round big numbers. `messageText` carries the same text as
 * a string, for clients (the console) that show it as received rather than as a parser rebuilt it.
 */
export function detailResponse(record: ReviewDetail): Response {
  return new Response(stringifyWithRaw(record, { message: record.messageText }), {
    headers: { "content-type": "application/json" },
  });
}

/**
 * The refusal with the record as it is now beside the error (`{"record": {...}, "error": ...}`),
 * so that after a conflict nobody overwrites blind. Its `message` is parsed here for the
 * client's convenience; `messageText` keeps the exact text.
 */
export async function withFreshRecord(refusal: Refusal, id: string, readerGrants: readonly Grant[]): Promise<Refusal> {
  const fresh = await getReview(id, readerGrants);
  if (!fresh) return refusal;
  return new Refusal(refusal.kind, refusal.code, refusal.message, {
    issues: refusal.issues,
    context: { ...refusal.context, record: withParsedMessage(fresh) },
    authorization: refusal.authorization,
  });
}
