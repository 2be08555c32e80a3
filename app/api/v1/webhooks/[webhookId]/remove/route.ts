import { webhookIdParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookReasonSchema, removeWebhook, responseSchemas as webhookBody } from "@/lib/notifications";

/** POST /api/v1/webhooks/{webhookId}/remove {reason} (admin): the endpoint and its deliveries go. */
export const POST = apiRoute<{ webhookId: string }>(
  {
    method: "POST",
    route: "/api/v1/webhooks/[webhookId]/remove",
    operationId: "removeWebhook",
    summary: "Remove a webhook endpoint",
    description: "Its deliveries go with it; nothing more is sent to it. `reason` is required.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookIdParams,
    body: webhookReasonSchema,
    answers: {
      ...ok("The endpoint as it was.", webhookBody.webhookOneSchema),
      404: error("No endpoint with this id."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, webhookReasonSchema);
    const webhook = await removeWebhook(params.webhookId, data.reason, changeActorOf(actor));
    return Response.json({ webhook });
  },
);
