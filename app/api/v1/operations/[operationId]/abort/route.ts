import { controlRoute } from "@/lib/http/operation-routes";
import { abortOperation, controlSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/abort */
export const POST = controlRoute(controlSchema, (id, body, actor) => abortOperation(id, body.reason, actor));
