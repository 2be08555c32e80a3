import { webhookSwitch } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookReasonSchema, setWebhookEnabled } from "@/lib/notifications";

/** POST /api/v1/webhooks/{webhookId}/enable {reason} (admin): its waiting deliveries are sent, new events queued again. */
export const POST = apiRoute<{ webhookId: string }>(webhookSwitch("enable"), async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, webhookReasonSchema);
  const webhook = await setWebhookEnabled(params.webhookId, true, data.reason, changeActorOf(actor));
  return Response.json({ webhook });
});
