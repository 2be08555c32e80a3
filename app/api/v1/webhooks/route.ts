import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { webhookDefinitionSchema, addWebhook, listWebhooks } from "@/lib/notifications";

/** GET /api/v1/webhooks (admin): every webhook endpoint with its deliveries' counts; never a secret. */
export const GET = apiRoute("users.manage", async () => Response.json({ webhooks: await listWebhooks() }));

/**
 * POST /api/v1/webhooks {url, domain?, events?, format?, openAbove?, oldestOpenAboveSeconds?,
 * reason?} (admin): adds an endpoint. The answer's `secret` signs its deliveries, shown this once.
 */
export const POST = apiRoute("users.manage", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, webhookDefinitionSchema);
  const { webhook, secret } = await addWebhook(data, changeActorOf(actor));
  return Response.json({ secret, webhook }, { status: 201 });
});
