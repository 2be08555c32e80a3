import { z } from "zod";
import { answered } from "@/lib/http/answered";
import { internalErrorResponse } from "@/lib/http/refusal-response";
import { documented } from "@/lib/http/route";
import { log } from "@/lib/log";
import { servedDocument } from "@/lib/openapi/document";
import { error, json } from "@/lib/openapi/parts";
import type { ApiOperation } from "@/lib/openapi/operation";

const definition: ApiOperation = {
  method: "GET",
  route: "/api/openapi.json",
  operationId: "getOpenApiDocument",
  summary: "This document",
  description: "The OpenAPI 3.1 document of the console's HTTP API, built from the definitions of its routes.",
  tag: "Service",
  access: { kind: "public" },
  answers: {
    200: {
      description: "The document.",
      content: json(z.looseObject({ openapi: z.string() })),
      headers: z.object({
        etag: z.string().meta({ description: "Send it back as `If-None-Match` to get a 304." }),
        "cache-control": z.string(),
      }),
    },
    304: { description: "The document has not changed since the `If-None-Match` ETag." },
    500: error("An unexpected failure; its cause is in the server's log only."),
  },
};

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document, public (it says what the API takes, nothing
 * of its data). It changes only with the code, so caches may keep it an hour and revalidate by
 * ETag.
 */
export const GET = documented(definition, async (request: Request): Promise<Response> => {
  const started = performance.now();
  let document: { text: string; etag: string };
  try {
    // Loaded here, not at the top: the list of every route module holds this one too.
    const { ROUTE_MODULES } = await import("../route-modules.generated");
    document = servedDocument(ROUTE_MODULES);
  } catch (failure) {
    log.error({ err: failure }, "building the OpenAPI document failed");
    return answered(definition, started, internalErrorResponse());
  }
  const headers = { etag: document.etag, "cache-control": "public, max-age=3600, must-revalidate" };
  if (request.headers.get("if-none-match") === document.etag) {
    return answered(definition, started, new Response(null, { status: 304, headers }));
  }
  return answered(
    definition,
    started,
    new Response(document.text, { headers: { ...headers, "content-type": "application/json" } }),
  );
});
