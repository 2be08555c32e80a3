import type { FieldIssue, Refusal, RefusalKind } from "@/lib/domain/refusal";

// Where a Refusal (lib/domain/refusal.ts) becomes HTTP, once: its status, the `{"error": {...}}`
// body. A refused authorization's decision-log entry is lib/audit/refusal-log.ts (ADR 0010, ADR 0012).

const STATUS: Record<RefusalKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  "too-large": 413,
  "unsupported-media-type": 415,
  unprocessable: 422,
};

export function refusalStatus(refusal: Pick<Refusal, "kind">): number {
  return STATUS[refusal.kind];
}

export interface ErrorBody {
  code: string;
  message: string;
  issues?: FieldIssue[];
}

export function refusalBody(refusal: Refusal): ErrorBody {
  const body: ErrorBody = { code: refusal.code, message: refusal.message };
  if (refusal.issues) body.issues = refusal.issues;
  return body;
}

/** `{...context, "error": {code, message, issues?}}` with the kind's status. */
export function refusalResponse(refusal: Refusal): Response {
  return Response.json({ ...refusal.context, error: refusalBody(refusal) }, { status: refusalStatus(refusal) });
}

/** The answer to anything that is not a refusal: a bare 500 (the cause goes to the log only). */
export function internalErrorResponse(): Response {
  return Response.json({ error: { code: "internal", message: "internal error" } }, { status: 500 });
}

/** How long a client should wait before it asks again while the database does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The answer while the database does not answer (lib/db/unavailable.ts): a 503 with Retry-After,
 * which clients and load balancers retry, never a 500. Nothing was changed.
 */
export function databaseUnavailableResponse(): Response {
  return Response.json(
    {
      error: { code: "database-unavailable", message: "the database does not answer; nothing was changed, try again" },
    },
    { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } },
  );
}
