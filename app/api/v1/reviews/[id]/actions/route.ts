import { grantsOf } from "@/lib/access";
import { recordApprovalGate, performAction, getReview } from "@/lib/actions";
import { isUuid } from "@/lib/domain/ids";
import { notFound, Refusal } from "@/lib/domain/refusal";
import { detailResponse, withFreshRecord } from "@/lib/http/review-responses";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { actionRequestSchema } from "@/lib/reviews";

/**
 * POST /api/v1/reviews/{id}/actions: one action, answered with the record as it now is; or, when
 * an approval policy holds it back, a 202 with the approval request that waits instead.
 */
export const POST = apiRoute<{ id: string }>("reviews.act", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, actionRequestSchema);
  if (!isUuid(params.id)) throw notFound(`no review record ${params.id}`);
  try {
    const outcome = await performAction(params.id, data, actor, { approvalGate: recordApprovalGate(actor) });
    if (outcome.approval) return Response.json({ approval: outcome.approval }, { status: 202 });
  } catch (error) {
    // With a conflict the client gets the record as it is now, so nobody overwrites blind.
    if (error instanceof Refusal && error.kind === "conflict")
      throw await withFreshRecord(error, params.id, grantsOf(actor));
    throw error;
  }
  const record = await getReview(params.id, grantsOf(actor));
  if (!record) throw new Error(`record ${params.id} vanished after an action`);
  return detailResponse(record);
});
