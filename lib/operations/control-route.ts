import type { z } from "zod";
import type { Actor } from "@/lib/auth/actor";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { operationIdOf, operationResponse, withRefusalsLogged } from "./route-support";

/**
 * The POST handler of one control of an operation (dry-run, confirm, pause, resume, abort):
 * validate the body, make the change (a 403 by the action's own permission is logged), answer
 * with the operation as it now is.
 */
export function controlRoute<S extends z.ZodType>(
  schema: S,
  change: (id: string, body: z.infer<S>, actor: Actor) => Promise<void>,
) {
  return apiRoute<{ operationId: string }>("reviews.act", async (context) => {
    const { request, actor, params } = context;
    const id = operationIdOf(params);
    const { data } = await parseJsonBody(request, schema);
    await withRefusalsLogged(context, id, () => change(id, data, actor));
    return operationResponse(id, actor);
  });
}
