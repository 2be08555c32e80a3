import { controlRoute } from "@/lib/http/operation-routes";
import { abortOperation, controlSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/abort */
export const POST = controlRoute(
  {
    name: "abort",
    operationId: "abortOperation",
    summary: "Abort an operation",
    description: "Ends it; records not dispatched stay as they are.",
    body: controlSchema,
  },
  (id, body, actor) => abortOperation(id, body.reason, actor),
);
