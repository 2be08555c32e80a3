import { APP_ROUTES } from "./app-routes";
import { documentedAnswers } from "@/lib/openapi/operation";
import { API_OPERATIONS } from "@/lib/openapi/operations";

// Outside production, every answer of apiRoute (lib/http/answered.ts) must be one the OpenAPI
// document gives its operation: a status nobody documented, or a route of app/ with no operation,
// throws. So every test that calls a handler also checks the document, and a new refusal cannot
// ship undocumented. In production the check costs nothing and never throws.

/** An answer the OpenAPI document does not give; apiRoute lets it through instead of a 500. */
export class UndocumentedAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UndocumentedAnswer";
  }
}

let statuses: Map<string, Set<number>> | undefined;

/** `METHOD /route` -> the statuses its operation documents (Better Auth's share their catch-all). */
function documentedStatuses(): Map<string, Set<number>> {
  if (!statuses) {
    statuses = new Map();
    for (const operation of API_OPERATIONS) {
      const key = `${operation.method} ${operation.route}`;
      const set = statuses.get(key) ?? new Set<number>();
      for (const status of Object.keys(documentedAnswers(operation))) set.add(Number(status));
      statuses.set(key, set);
    }
  }
  return statuses;
}

const APP_ROUTE_SET = new Set<string>(APP_ROUTES);

/**
 * Checks, outside production, that the status an API route answered is one its OpenAPI
 * operation documents. `route` is `METHOD /pattern` (lib/http/route.ts routePattern); a path
 * that is no route of app/ (a handler a test mounts at a made-up path) has nothing to check.
 */
export function checkDocumentedStatus(answer: { route: string; status: number }): void {
  if (process.env.NODE_ENV === "production") return;
  const documented = documentedStatuses().get(answer.route);
  if (!documented) {
    const pattern = answer.route.slice(answer.route.indexOf(" ") + 1);
    if (!APP_ROUTE_SET.has(pattern)) return;
    throw new UndocumentedAnswer(
      `${answer.route} answered ${answer.status}, but the OpenAPI document has no operation ${answer.route} (lib/openapi/operations.ts)`,
    );
  }
  if (!documented.has(answer.status)) {
    throw new UndocumentedAnswer(
      `${answer.route} answered ${answer.status}, which its OpenAPI operation does not document (lib/openapi/operations.ts)`,
    );
  }
}
