import type { Actor } from "@/lib/auth/actor";
import { ApiError } from "@/lib/http/errors";
import { recordRefusal } from "@/lib/http/refusal-log";
import type { RouteContext } from "@/lib/http/route";
import { isUuid } from "@/lib/domain/ids";
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
 * the route's) is recorded like every refused authorization (lib/http/refusal-log.ts).
 */
export async function withRefusalsLogged<T>(
  { request, actor, route }: Pick<RouteContext<unknown>, "request" | "actor" | "route">,
  operationId: string | null,
  change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      await recordRefusal({
        actor,
        route,
        reason: error.message,
        method: request.method,
        path: new URL(request.url).pathname,
        details: operationId ? { operationId } : {},
        fetchSite: request.headers.get("sec-fetch-site"),
      });
    }
    throw error;
  }
}
