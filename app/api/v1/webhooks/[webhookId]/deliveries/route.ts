import { webhookIdParams, ok, error } from "@/lib/openapi/parts";
import { apiRoute, parseQuery } from "@/lib/http/route";
import {
  listDeliveries,
  deliveriesQuerySchema,
  existingWebhook,
  responseSchemas as webhookBody,
} from "@/lib/notifications";

/** GET /api/v1/webhooks/{webhookId}/deliveries?state&limit (admin): newest first, each with its attempts. */
export const GET = apiRoute<{ webhookId: string }>(
  {
    method: "GET",
    route: "/api/v1/webhooks/[webhookId]/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "An endpoint's deliveries",
    description:
      "Newest first, each with its attempts: status and duration (or the error). The endpoint's answer is never read or kept.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookIdParams,
    query: deliveriesQuerySchema,
    answers: {
      ...ok("The deliveries.", webhookBody.deliveryListSchema),
      404: error("No endpoint with this id."),
    },
  },
  async ({ request, params }) => {
    const query = parseQuery(request, deliveriesQuerySchema);
    const webhook = await existingWebhook(params.webhookId);
    return Response.json({ deliveries: await listDeliveries(webhook.id, query) });
  },
);
