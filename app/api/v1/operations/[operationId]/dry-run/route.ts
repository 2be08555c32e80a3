import { controlRoute } from "@/lib/http/operation-routes";
import { dryRunOperation, emptyBodySchema } from "@/lib/operations";

/** POST /api/v1/operations/{id}/dry-run: what decide would say now for each record not yet dispatched. */
export const POST = controlRoute(
  {
    name: "dry-run",
    operationId: "dryRunOperation",
    summary: "Dry-run an operation",
    description: "What the decision would say now for each record not yet dispatched; confirm names it.",
    body: emptyBodySchema,
  },
  (id, _body, actor) => dryRunOperation(id, actor),
);
