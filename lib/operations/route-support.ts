import type { Actor } from "@/lib/auth/actor";
import { appendStandaloneDecision } from "@/lib/audit/append";
import { ApiError } from "@/lib/http/errors";
import { isUuid } from "@/lib/reviews/ids";
import { getOperation } from "./view";

/** An operation id from the path; anything else names no operation (404, not a database error). */
export function operationIdOf(params: { operationId: string }): string {
  if (!isUuid(params.operationId)) throw new ApiError(404, "not-found", `no operation ${params.operationId}`);
  // One spelling everywhere (the decision log's details compare operation ids as text).
  return params.operationId.toLowerCase();
}

/** The operation as the caller sees it (its `controls` depend on the caller's role). */
export async function operationResponse(id: string, actor: Actor, status = 200): Promise<Response> {
  const view = await getOperation(id, actor.role);
  if (!view) throw new ApiError(404, "not-found", `no operation ${id}`);
  return Response.json(view, { status });
}

/**
 * Runs a change to an operation; a refusal by role (the action's own permission, checked past
 * the route's) is written to the decision log like every refused authorization.
 */
export async function withRefusalsLogged<T>(
  request: Request,
  actor: Actor,
  operationId: string | null,
  change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      await appendStandaloneDecision({
        actor: actor.label,
        actorRole: actor.role,
        action: "authorization.refused",
        reason: error.message,
        details: {
          method: request.method,
          path: new URL(request.url).pathname,
          ...(operationId ? { operationId } : {}),
        },
      });
    }
    throw error;
  }
}
