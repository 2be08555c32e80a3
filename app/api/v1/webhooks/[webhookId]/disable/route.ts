import { webhookSwitch } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookReasonSchema, setWebhookEnabled } from "@/lib/notifications";

/** POST /api/v1/webhooks/{webhookId}/disable {reason} (admin): nothing new is queued for it and nothing is sent; its deliveries wait. */
export const POST = apiRoute<{ webhookId: string }>(webhookSwitch("disable"), async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, webhookReasonSchema);
  const webhook = await setWebhookEnabled(params.webhookId, false, data.reason, changeActorOf(actor));
  return Response.json({ webhook });
});
