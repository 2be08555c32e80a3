import { webhookIdParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookDefinitionSchema, changeWebhook, responseSchemas as webhookBody } from "@/lib/notifications";

/**
 * PUT /api/v1/webhooks/{webhookId} {url, domain?, events?, format?, openAbove?,
 * oldestOpenAboveSeconds?, reason} (admin): the endpoint's whole definition again; its secret,
 * deliveries and disabled state stay.
 */
export const PUT = apiRoute<{ webhookId: string }>(
  {
    method: "PUT",
    route: "/api/v1/webhooks/[webhookId]",
    operationId: "changeWebhook",
    summary: "Change a webhook endpoint",
    description:
      "The whole definition again, as when adding one: a field left out takes its default. Its secret, deliveries " +
      "and disabled state stay; a changed threshold is re-armed. The same checks of `url` and `domain` apply.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookIdParams,
    body: webhookDefinitionSchema,
    answers: {
      ...ok("The endpoint as it now is.", webhookBody.webhookOneSchema),
      404: error("No endpoint with this id."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, webhookDefinitionSchema);
    return Response.json({ webhook: await changeWebhook(params.webhookId, data, changeActorOf(actor)) });
  },
);
