import { changeActorOf } from "@/lib/access";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { removeWebhookSchema } from "@/lib/notifications/endpoint-schema";
import { removeWebhook } from "@/lib/notifications/endpoints";

/** POST /api/v1/webhooks/{webhookId}/remove {reason?} (admin): the endpoint and its deliveries go. */
export const POST = apiRoute<{ webhookId: string }>("users.manage", async ({ request, actor, params }) => {
  if (!isUuid(params.webhookId)) throw notFound(`no webhook ${params.webhookId}`);
  const { data } = await parseJsonBody(request, removeWebhookSchema);
  const webhook = await removeWebhook(params.webhookId, data.reason, changeActorOf(actor));
  return Response.json({ webhook });
});
