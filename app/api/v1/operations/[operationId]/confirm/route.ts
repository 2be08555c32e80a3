import { controlRoute } from "@/lib/http/operation-routes";
import { confirmOperation, confirmSchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/confirm: starts dispatching, naming the dry run the person saw. */
export const POST = controlRoute(
  {
    name: "confirm",
    operationId: "confirmOperation",
    summary: "Confirm an operation",
    description: "Starts dispatching, naming the dry run the person reviewed.",
    body: confirmSchema,
  },
  confirmOperation,
);
