import { ok } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookDefinitionSchema, addWebhook, listWebhooks, responseSchemas as webhookBody } from "@/lib/notifications";

/** GET /api/v1/webhooks (admin): every webhook endpoint with its deliveries' counts; never a secret. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/webhooks",
    operationId: "listWebhooks",
    summary: "Every webhook endpoint",
    description: "With the counts of its deliveries by state; never a secret.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("The endpoints.", webhookBody.webhookListSchema),
  },
  async () => Response.json({ webhooks: await listWebhooks() }),
);

/**
 * POST /api/v1/webhooks {url, domain?, events?, format?, openAbove?, oldestOpenAboveSeconds?,
 * reason?} (admin): adds an endpoint. The answer's `secret` signs its deliveries, shown this once.
 */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/webhooks",
    operationId: "addWebhook",
    summary: "Add a webhook endpoint",
    description:
      "`secret` signs its deliveries (Standard Webhooks), shown this once. `domain` null: every domain. " +
      "`events` absent: every event type. `reason` is required. A `url` whose host is, or resolves to, a " +
      "loopback, private, link-local, unique-local, unspecified or metadata address (in any spelling) is " +
      "refused (400 naming `url`) unless `WEBHOOK_ALLOWED_NETWORKS` allows it; each delivery checks again. " +
      "The decision log keeps the URL's scheme and host only.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    body: webhookDefinitionSchema,
    answers: {
      ...ok("The endpoint and its secret.", webhookBody.webhookCreatedSchema, 201),
    },
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, webhookDefinitionSchema);
    const { webhook, secret } = await addWebhook(data, changeActorOf(actor));
    return Response.json({ secret, webhook }, { status: 201 });
  },
);
