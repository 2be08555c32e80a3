import { controlRoute } from "@/lib/http/operation-routes";
import { dryRunOperation } from "@/lib/operations/control";
import { emptyBodySchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/dry-run: what decide would say now for each record not yet dispatched. */
export const POST = controlRoute(emptyBodySchema, (id, _body, actor) => dryRunOperation(id, actor));
