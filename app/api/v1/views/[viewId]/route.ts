import { ownerOnly, viewAccess, viewIdParams, ok, viewErrors, error } from "@/lib/openapi/parts";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { personOf } from "@/lib/users";
import { updateViewSchema, deleteView, updateView, responseSchemas as viewBody } from "@/lib/views";

type Params = { viewId: string };

/** PUT /api/v1/views/{viewId} {name?, query?, shared?}: the owner renames, re-filters, shares or unshares it. */
export const PUT = apiRoute<Params>(
  {
    method: "PUT",
    route: "/api/v1/views/[viewId]",
    operationId: "changeSavedView",
    summary: "Rename, re-filter, share or unshare your view",
    description: "Only the fields given change; `query` is checked as when saving." + ownerOnly,
    tag: "Saved views",
    access: viewAccess,
    params: viewIdParams,
    body: updateViewSchema,
    answers: {
      ...ok("The view as it now is.", viewBody.savedViewOneSchema),
      ...viewErrors,
      409: error("The caller has another view of this name (`name-taken`, naming `name`)."),
    },
  },
  async ({ request, actor, params }) => {
    personOf(actor, "saved views"); // a token is refused before its body is read
    const { data } = await parseJsonBody(request, updateViewSchema);
    return Response.json({ view: await updateView(actor, params.viewId, data) });
  },
);

/** DELETE /api/v1/views/{viewId}: the owner deletes it (for everyone it was shared with too). */
export const DELETE = apiRoute<Params>(
  {
    method: "DELETE",
    route: "/api/v1/views/[viewId]",
    operationId: "deleteSavedView",
    summary: "Delete your view",
    description: "For everyone it was shared with too. No body." + ownerOnly,
    tag: "Saved views",
    access: viewAccess,
    params: viewIdParams,
    answers: { ...ok("The view as it was.", viewBody.savedViewOneSchema), ...viewErrors },
  },
  async ({ actor, params }) => Response.json({ view: await deleteView(actor, params.viewId) }),
);
