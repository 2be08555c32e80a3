import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { listAssignees } from "@/lib/users";

/** GET /api/v1/assignees (owner, support): the people a record can be assigned to. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/assignees",
    operationId: "listAssignees",
    summary: "People a record can be assigned to",
    description: "Owners and support who are not disabled, by email: the choices of the `assign` action.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.assign" },
    answers: ok("The people.", responses.assigneeListSchema),
  },
  async ({ actor }) => Response.json({ people: await listAssignees(grantsOf(actor)) }),
);
