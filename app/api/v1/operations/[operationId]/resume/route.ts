import { resumeOperation } from "@/lib/operations/control";
import { controlRoute } from "@/lib/operations/control-route";
import { controlSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/resume (also "continue" after the canary) */
export const POST = controlRoute(controlSchema, (id, body, actor) => resumeOperation(id, body.reason, actor));
