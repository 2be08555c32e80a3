import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { personOf } from "@/lib/users";
import { createViewSchema, createView, listViews } from "@/lib/views";

/** GET /api/v1/views: the caller's saved views of the queue, and the team's shared ones. */
export const GET = apiRoute("views.own", async ({ actor }) => Response.json({ views: await listViews(actor) }));

/** POST /api/v1/views {name, query, shared}: saves the queue's filters and sort under a name. */
export const POST = apiRoute("views.own", async ({ request, actor }) => {
  personOf(actor, "saved views"); // a token is refused before its body is read
  const { data } = await parseJsonBody(request, createViewSchema);
  return Response.json({ view: await createView(actor, data) }, { status: 201 });
});
