import { observeHttpRequest } from "@/lib/http/metrics";
import { checkDocumentedStatus } from "@/lib/http/documented-status";
import type { ApiOperation } from "@/lib/openapi/operation";

/** What every answer of apiRoute passes through: the duration histogram and the OpenAPI check. */
export function answered<A extends { status: number }>(operation: ApiOperation, started: number, response: A): A {
  observeHttpRequest({
    route: operation.route,
    method: operation.method,
    status: response.status,
    seconds: (performance.now() - started) / 1000,
  });
  checkDocumentedStatus(operation, response.status);
  return response;
}
