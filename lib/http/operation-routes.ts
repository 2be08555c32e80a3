import type { z } from "zod";
import { type Actor, grantsOf } from "@/lib/access";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { getOperation, operationExists } from "@/lib/operations";
import { error, ok, operationIdParams } from "@/lib/openapi/parts";
import * as responses from "@/lib/openapi/responses";
import { apiRoute, parseJsonBody, type RouteDefinition } from "./route";

// What the routes under /api/v1/operations share: the operation named by the path, and the
// answer with the operation as the caller sees it. The rules themselves live in lib/operations.

/** An operation id from the path; anything else names no operation (404, not a database error). */
export function operationIdOf(params: { operationId: string }): string {
  if (!isUuid(params.operationId)) throw notFound(`no operation ${params.operationId}`);
  // One spelling everywhere (the decision log's details compare operation ids as text).
  return params.operationId.toLowerCase();
}

/**
 * Refuses (404) an operation that does not exist, or that the actor may not read (its records lie
 * outside their domains: ADR 0030), for the routes that list what belongs to it.
 */
export async function requireOperation(id: string, actor: Actor): Promise<void> {
  if (!(await operationExists(id, grantsOf(actor)))) throw notFound(`no operation ${id}`);
}

/** The operation as the caller sees it (its `controls` depend on the caller's role). */
export async function operationResponse(id: string, actor: Actor, status = 200): Promise<Response> {
  const view = await getOperation(id, grantsOf(actor));
  if (!view) throw notFound(`no operation ${id}`);
  return Response.json(view, { status });
}

/** What one control's route says of itself; the rest of its definition all controls share. */
export interface ControlDefinition<S extends z.ZodType> {
  /** The last segment of its path: `/api/v1/operations/{operationId}/<name>`. */
  name: "dry-run" | "confirm" | "pause" | "resume" | "abort";
  operationId: string;
  summary: string;
  description: string;
  body: S;
}

function controlOperation(control: ControlDefinition<z.ZodType>): RouteDefinition {
  return {
    method: "POST",
    route: `/api/v1/operations/[operationId]/${control.name}`,
    operationId: control.operationId,
    summary: control.summary,
    description: control.description,
    tag: "Operations",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "Controlling a replay or cancel operation also needs `reviews.resolve` (owner); a note one `reviews.note`.",
    },
    params: operationIdParams,
    body: control.body,
    answers: {
      ...ok("The operation as it now is.", responses.operationSchema),
      404: error("No operation with this id."),
      409: error(
        "The operation's state does not allow this now (`not-allowed`, `dry-run-required`, `dry-run-stale`, `nothing-to-act-on` when the dry run found no record the operation would act on, ...).",
      ),
    },
  };
}

/**
 * The POST handler of one control of an operation (dry-run, confirm, pause, resume, abort):
 * validate the body, make the change, answer with the operation as it now is. A refusal by the
 * action's own permission is a `forbidden` Refusal naming the operation, which apiRoute records.
 */
export function controlRoute<S extends z.ZodType>(
  control: ControlDefinition<S>,
  change: (id: string, body: z.infer<S>, actor: Actor) => Promise<void>,
) {
  return apiRoute<{ operationId: string }>(controlOperation(control), async ({ request, actor, params }) => {
    const id = operationIdOf(params);
    const { data } = await parseJsonBody(request, control.body);
    await change(id, data, actor);
    return operationResponse(id, actor);
  });
}
