import { controlRoute } from "@/lib/http/operation-routes";
import { pauseOperation } from "@/lib/operations/control";
import { pauseSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/pause */
export const POST = controlRoute(pauseSchema, (id, body, actor) => pauseOperation(id, body.reason, actor));
