import { viewAccess, ok, error } from "@/lib/openapi/parts";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { personOf } from "@/lib/users";
import { createViewSchema, createView, listViews, responseSchemas as viewBody } from "@/lib/views";

/** GET /api/v1/views: the caller's saved views of the queue, and the team's shared ones. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/views",
    operationId: "listSavedViews",
    summary: "Your saved views and the team's",
    description:
      "The caller's own views by name, then the views other people shared (with the owner's name and email).",
    tag: "Saved views",
    access: viewAccess,
    answers: ok("The views.", viewBody.savedViewListSchema),
  },
  async ({ actor }) => Response.json({ views: await listViews(actor) }),
);

/** POST /api/v1/views {name, query, shared}: saves the queue's filters and sort under a name. */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/views",
    operationId: "saveView",
    summary: "Save the queue's filters and sort under a name",
    description:
      "`query` is checked by the rules of GET /api/v1/reviews and kept in one canonical form; a parameter the " +
      "queue does not take, or a value it refuses, is a 400 naming `query` and nothing is saved.",
    tag: "Saved views",
    access: viewAccess,
    body: createViewSchema,
    answers: {
      ...ok("The view.", viewBody.savedViewOneSchema, 201),
      409: error(
        "The caller has a view of this name (`name-taken`) or 50 views already (`view-limit`); both name `name`.",
      ),
    },
  },
  async ({ request, actor }) => {
    personOf(actor, "saved views"); // a token is refused before its body is read
    const { data } = await parseJsonBody(request, createViewSchema);
    return Response.json({ view: await createView(actor, data) }, { status: 201 });
  },
);
