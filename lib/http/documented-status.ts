import { type ApiOperation, documentedAnswers } from "@/lib/openapi/operation";

// Outside production, every answer of apiRoute (lib/http/answered.ts) must be one its route's
// definition documents: a status nobody documented throws. So every test that calls a handler
// also checks the OpenAPI document, and a new refusal cannot ship undocumented. In production
// the check costs nothing and never throws.

/** An answer the OpenAPI document does not give; apiRoute lets it through instead of a 500. */
export class UndocumentedAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UndocumentedAnswer";
  }
}

const statuses = new WeakMap<ApiOperation, Set<number>>();

function documentedStatuses(operation: ApiOperation): Set<number> {
  let set = statuses.get(operation);
  if (!set) {
    set = new Set(Object.keys(documentedAnswers(operation)).map(Number));
    statuses.set(operation, set);
  }
  return set;
}

/** Throws, outside production, when `status` is not an answer `operation` documents. */
export function checkDocumentedStatus(operation: ApiOperation, status: number): void {
  if (process.env.NODE_ENV === "production") return;
  if (!documentedStatuses(operation).has(status)) {
    throw new UndocumentedAnswer(
      `${operation.method} ${operation.route} answered ${status}, which its definition (its route.ts) does not document`,
    );
  }
}
