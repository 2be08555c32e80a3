import { notFound } from "@/lib/domain/refusal";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { deliveriesQuerySchema } from "@/lib/notifications/endpoint-schema";
import { getWebhook, listDeliveries } from "@/lib/notifications/endpoints";

/** GET /api/v1/webhooks/{webhookId}/deliveries?state&limit (admin): newest first, each with its attempts. */
export const GET = apiRoute<{ webhookId: string }>("users.manage", async ({ request, params }) => {
  const query = parseQuery(request, deliveriesQuerySchema);
  const webhook = await getWebhook(params.webhookId);
  if (!webhook) throw notFound(`no webhook ${params.webhookId}`);
  return Response.json({ deliveries: await listDeliveries(webhook.id, query) });
});
