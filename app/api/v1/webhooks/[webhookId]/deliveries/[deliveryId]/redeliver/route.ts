import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { redeliver, webhookReasonSchema } from "@/lib/notifications";

/**
 * POST /api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver {reason} (admin): a failed
 * or waiting delivery is sent again now, under the same `webhook-id`.
 */
export const POST = apiRoute<{ webhookId: string; deliveryId: string }>(
  "users.manage",
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, webhookReasonSchema);
    const delivery = await redeliver(params.webhookId, params.deliveryId, data.reason, changeActorOf(actor));
    return Response.json({ delivery });
  },
);
