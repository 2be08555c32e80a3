import { webhookIdParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { sendTestEvent, responseSchemas as webhookBody } from "@/lib/notifications";

/** POST /api/v1/webhooks/{webhookId}/test (admin, no body): a `webhook.test` event to this endpoint, sent now. */
export const POST = apiRoute<{ webhookId: string }>(
  {
    method: "POST",
    route: "/api/v1/webhooks/[webhookId]/test",
    operationId: "testWebhook",
    summary: "Send a test event",
    description:
      "Queues a `webhook.test` event for this endpoint only, due now; its delivery shows whether the endpoint " +
      "accepts signed deliveries. No body.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookIdParams,
    answers: {
      ...ok("The queued delivery.", webhookBody.deliveryOneSchema, 202),
      404: error("No endpoint with this id."),
      409: error("The endpoint is disabled (`webhook-disabled`)."),
    },
  },
  async ({ actor, params }) =>
    Response.json({ delivery: await sendTestEvent(params.webhookId, changeActorOf(actor)) }, { status: 202 }),
);
