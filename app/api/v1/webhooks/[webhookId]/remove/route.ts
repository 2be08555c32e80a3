import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookReasonSchema, removeWebhook } from "@/lib/notifications";

/** POST /api/v1/webhooks/{webhookId}/remove {reason} (admin): the endpoint and its deliveries go. */
export const POST = apiRoute<{ webhookId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, webhookReasonSchema);
  const webhook = await removeWebhook(params.webhookId, data.reason, changeActorOf(actor));
  return Response.json({ webhook });
});
