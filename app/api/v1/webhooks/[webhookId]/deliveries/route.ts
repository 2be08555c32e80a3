import { apiRoute, parseQuery } from "@/lib/http/route";
import { listDeliveries, deliveriesQuerySchema, existingWebhook } from "@/lib/notifications";

/** GET /api/v1/webhooks/{webhookId}/deliveries?state&limit (admin): newest first, each with its attempts. */
export const GET = apiRoute<{ webhookId: string }>("users.manage", async ({ request, params }) => {
  const query = parseQuery(request, deliveriesQuerySchema);
  const webhook = await existingWebhook(params.webhookId);
  return Response.json({ deliveries: await listDeliveries(webhook.id, query) });
});
