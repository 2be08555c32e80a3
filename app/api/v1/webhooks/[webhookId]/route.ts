import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookDefinitionSchema, changeWebhook } from "@/lib/notifications";

/**
 * PUT /api/v1/webhooks/{webhookId} {url, domain?, events?, format?, openAbove?,
 * oldestOpenAboveSeconds?, reason} (admin): the endpoint's whole definition again; its secret,
 * deliveries and disabled state stay.
 */
export const PUT = apiRoute<{ webhookId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, webhookDefinitionSchema);
  return Response.json({ webhook: await changeWebhook(params.webhookId, data, changeActorOf(actor)) });
});
