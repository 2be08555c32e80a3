import { abortOperation } from "@/lib/operations/control";
import { controlRoute } from "@/lib/operations/control-route";
import { controlSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/abort */
export const POST = controlRoute(controlSchema, (id, body, actor) => abortOperation(id, body.reason, actor));
