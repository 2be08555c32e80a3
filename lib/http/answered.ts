import { observeHttpRequest } from "@/lib/http/metrics";
import { checkDocumentedStatus } from "@/lib/http/documented-status";

/** What every answer of apiRoute passes through: the duration histogram and the OpenAPI check. */
export function answered<A extends { status: number }>(route: string, started: number, response: A): A {
  const space = route.indexOf(" ");
  observeHttpRequest({
    route: route.slice(space + 1),
    method: route.slice(0, space),
    status: response.status,
    seconds: (performance.now() - started) / 1000,
  });
  checkDocumentedStatus({ route, status: response.status });
  return response;
}
