import { z } from "zod";
import { webhookIdParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { redeliver, webhookReasonSchema, responseSchemas as webhookBody } from "@/lib/notifications";

/**
 * POST /api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver {reason} (admin): a failed
 * or waiting delivery is sent again now, under the same `webhook-id`.
 */
export const POST = apiRoute<{ webhookId: string; deliveryId: string }>(
  {
    method: "POST",
    route: "/api/v1/webhooks/[webhookId]/deliveries/[deliveryId]/redeliver",
    operationId: "redeliverWebhookDelivery",
    summary: "Send a delivery again",
    description:
      "A failed delivery gets one more attempt now; a pending one skips the rest of its backoff. The `webhook-id` " +
      "stays the same, so a receiver that has it already recognises it. `reason` is required.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookIdParams.extend({
      deliveryId: z.string().meta({ description: "The delivery's id (its `webhook-id`, `msg_…`)." }),
    }),
    body: webhookReasonSchema,
    answers: {
      ...ok("The delivery, due now.", webhookBody.deliveryOneSchema),
      404: error("No endpoint with this id, or no such delivery of it."),
      409: error(
        "Delivered already (`already-delivered`), being sent at this moment (`delivery-in-flight`), or the endpoint is disabled (`webhook-disabled`).",
      ),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, webhookReasonSchema);
    const delivery = await redeliver(params.webhookId, params.deliveryId, data.reason, changeActorOf(actor));
    return Response.json({ delivery });
  },
);
