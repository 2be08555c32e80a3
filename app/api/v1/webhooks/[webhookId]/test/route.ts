import { changeActorOf } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { sendTestEvent } from "@/lib/notifications";

/** POST /api/v1/webhooks/{webhookId}/test (admin, no body): a `webhook.test` event to this endpoint, sent now. */
export const POST = apiRoute<{ webhookId: string }>("users.manage", async ({ actor, params }) =>
  Response.json({ delivery: await sendTestEvent(params.webhookId, changeActorOf(actor)) }, { status: 202 }),
);
