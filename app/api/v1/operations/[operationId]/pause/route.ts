import { controlRoute } from "@/lib/http/operation-routes";
import { pauseOperation, pauseSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/pause */
export const POST = controlRoute(
  {
    name: "pause",
    operationId: "pauseOperation",
    summary: "Pause an operation",
    description: "Stops dispatching until resumed. The reason is optional: a pause is the emergency stop.",
    body: pauseSchema,
  },
  (id, body, actor) => pauseOperation(id, body.reason, actor),
);
