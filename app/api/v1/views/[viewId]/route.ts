import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { personOf } from "@/lib/users";
import { updateViewSchema, deleteView, updateView } from "@/lib/views";

type Params = { viewId: string };

/** PUT /api/v1/views/{viewId} {name?, query?, shared?}: the owner renames, re-filters, shares or unshares it. */
export const PUT = apiRoute<Params>("views.own", async ({ request, actor, params }) => {
  personOf(actor, "saved views"); // a token is refused before its body is read
  const { data } = await parseJsonBody(request, updateViewSchema);
  return Response.json({ view: await updateView(actor, params.viewId, data) });
});

/** DELETE /api/v1/views/{viewId}: the owner deletes it (for everyone it was shared with too). */
export const DELETE = apiRoute<Params>("views.own", async ({ actor, params }) =>
  Response.json({ view: await deleteView(actor, params.viewId) }),
);
