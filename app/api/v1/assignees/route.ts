import { grantsOf } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { listAssignees } from "@/lib/users";

/** GET /api/v1/assignees (owner, support): the people a record can be assigned to. */
export const GET = apiRoute("reviews.assign", async ({ actor }) =>
  Response.json({ people: await listAssignees(grantsOf(actor)) }),
);
