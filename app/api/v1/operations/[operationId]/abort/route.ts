import { controlRoute } from "@/lib/http/operation-routes";
import { abortOperation } from "@/lib/operations/control";
import { controlSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/abort */
export const POST = controlRoute(controlSchema, (id, body, actor) => abortOperation(id, body.reason, actor));
