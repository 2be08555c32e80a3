import { type Actor } from "@/lib/access";
import type { FieldIssue, Refusal, RefusalKind } from "@/lib/domain/refusal";
import { recordRefusal } from "./refusal-log";

// Where a Refusal (lib/domain/refusal.ts) becomes HTTP, once: its status, the `{"error": {...}}`
// body, and for a refused authorization the decision-log entry (ADR 0010, ADR 0012).

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

/** Who was refused, and where: what the decision-log entry of a refused authorization needs. */
export interface RefusedRequest {
  actor: Pick<Actor, "kind" | "label" | "role">;
  /** The route as a pattern (`POST /api/v1/reviews/[id]/actions`), or `page`. */
  route: string;
  method: string;
  path?: string;
  /** The browser's `Sec-Fetch-Site`, for a request authenticated by the session cookie. */
  fetchSite: string | null;
}

export function refusedRequest(request: Request, actor: RefusedRequest["actor"], route: string): RefusedRequest {
  return {
    actor,
    route,
    method: request.method,
    path: new URL(request.url).pathname,
    fetchSite: request.headers.get("sec-fetch-site"),
  };
}

/**
 * Records a `forbidden` refusal as `authorization.refused` (the only place that entry is made
 * from a refusal): the application log always, the decision log when the actor sent it.
 */
export async function recordForbidden(refusal: Refusal, where: RefusedRequest): Promise<void> {
  if (refusal.kind !== "forbidden") return;
  const about = refusal.authorization ?? {};
  await recordRefusal({
    actor: where.actor,
    route: where.route,
    reason: about.reason ?? refusal.message,
    method: where.method,
    ...(where.path !== undefined ? { path: where.path } : {}),
    reviewId: about.reviewId ?? null,
    effectKey: about.effectKey ?? null,
    details: about.details ?? {},
    fetchSite: where.fetchSite,
    crossSite: about.crossSite ?? false,
  });
}
