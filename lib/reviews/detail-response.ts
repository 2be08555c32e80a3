import { stringifyWithRaw } from "@/lib/http/raw-json";
import type { ReviewDetail } from "./detail";

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
