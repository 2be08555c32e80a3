import { controlRoute } from "@/lib/http/operation-routes";
import { confirmOperation } from "@/lib/operations/control";
import { confirmSchema } from "@/lib/operations/schema";

/** POST /api/v1/operations/{id}/confirm: starts dispatching, naming the dry run the person saw. */
export const POST = controlRoute(confirmSchema, confirmOperation);
