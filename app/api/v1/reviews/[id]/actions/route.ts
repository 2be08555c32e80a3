import { ApiError } from "@/lib/http/errors";
import { recordRefusal } from "@/lib/http/refusal-log";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { actionRequestSchema } from "@/lib/reviews/action-rules";
import { performAction } from "@/lib/reviews/actions/perform-action";
import { getReview } from "@/lib/reviews/detail";
import { detailResponse } from "@/lib/reviews/detail-response";
import { isUuid } from "@/lib/domain/ids";

/** POST /api/v1/reviews/{id}/actions: one action, answered with the record as it now is. */
export const POST = apiRoute<{ id: string }>("reviews.act", async ({ request, actor, params, route }) => {
  const { data } = await parseJsonBody(request, actionRequestSchema);
  if (!isUuid(params.id)) throw new ApiError(404, "not-found", `no review record ${params.id}`);
  const outcome = await performAction(params.id, data, actor);
  if (!outcome.ok) {
    if (outcome.status === 403) {
      await recordRefusal({
        actor,
        route,
        reason: outcome.message,
        method: request.method,
        path: new URL(request.url).pathname,
        reviewId: params.id,
        details: { action: data.action },
        fetchSite: request.headers.get("sec-fetch-site"),
      });
    }
    // With a conflict the client gets the record as it is now, so nobody overwrites blind.
    const fresh = outcome.status === 409 ? await getReview(params.id) : null;
    // (`message` parsed here for convenience; `messageText` keeps the exact text.)
    const record = fresh ? { ...fresh, message: JSON.parse(fresh.messageText) as unknown } : undefined;
    throw new ApiError(outcome.status, outcome.code, outcome.message, outcome.issues, record ? { record } : undefined);
  }
  const record = await getReview(params.id);
  if (!record) throw new Error(`record ${params.id} vanished after an action`);
  return detailResponse(record);
});
