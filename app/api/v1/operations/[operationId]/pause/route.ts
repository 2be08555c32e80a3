import { controlRoute } from "@/lib/http/operation-routes";
import { pauseOperation, pauseSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/pause */
export const POST = controlRoute(pauseSchema, (id, body, actor) => pauseOperation(id, body.reason, actor));
