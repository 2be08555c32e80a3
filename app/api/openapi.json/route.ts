import { answered } from "@/lib/http/answered";
import { internalErrorResponse } from "@/lib/http/refusal-response";
import { log } from "@/lib/log";
import { servedDocument } from "@/lib/openapi/document";

const ROUTE = "GET /api/openapi.json";

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document, public (it says what the API takes, nothing
 * of its data). It changes only with the code, so caches may keep it an hour and revalidate by
 * ETag.
 */
export async function GET(request: Request): Promise<Response> {
  const started = performance.now();
  let document: { text: string; etag: string };
  try {
    document = servedDocument();
  } catch (error) {
    log.error({ err: error }, "building the OpenAPI document failed");
    return answered(ROUTE, started, internalErrorResponse());
  }
  const headers = { etag: document.etag, "cache-control": "public, max-age=3600, must-revalidate" };
  if (request.headers.get("if-none-match") === document.etag) {
    return answered(ROUTE, started, new Response(null, { status: 304, headers }));
  }
  return answered(
    ROUTE,
    started,
    new Response(document.text, { headers: { ...headers, "content-type": "application/json" } }),
  );
}
