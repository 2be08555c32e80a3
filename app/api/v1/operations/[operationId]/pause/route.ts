import { pauseOperation } from "@/lib/operations/control";
import { controlRoute } from "@/lib/operations/control-route";
import { controlSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/pause */
export const POST = controlRoute(controlSchema, (id, body, actor) => pauseOperation(id, body.reason, actor));
