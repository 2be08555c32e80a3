import * as responses from "@/lib/openapi/responses";
import { recordIdParams, ok, error, json } from "@/lib/openapi/parts";
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
export const POST = apiRoute<{ id: string }>(
  {
    method: "POST",
    route: "/api/v1/reviews/[id]/actions",
    operationId: "actOnReview",
    summary: "Act on a record",
    description:
      "replay, correct-and-replay, cancel, confirm-applied, confirm-not-applied, skip-gap or note; which fits which record is the action matrix of docs/contract.md. Also run-now, reschedule (`runAt`) and unschedule of a scheduled replay, and assign (`assignee`; null unassigns): docs/decisions/0028-assignment-and-scheduled-replays.md.",
    tag: "Review records",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "Each action needs its own too: replay, correct-and-replay, cancel, skip-gap, run-now, reschedule and unschedule `reviews.resolve` (owner); confirm-applied and confirm-not-applied `reviews.confirm` (support, owner); note `reviews.note`; assign `reviews.assign` (owner, support).",
    },
    params: recordIdParams,
    body: actionRequestSchema,
    answers: {
      ...ok("The record as it now is.", responses.reviewDetailSchema),
      ...ok(
        "An approval policy holds the action back (cancel, confirm-applied, skip-gap): nothing ran; it waits as this approval request for another person (docs/decisions/0031-four-eyes-approvals.md).",
        responses.approvalAnswerBodySchema,
        202,
      ),
      404: error("No record with this id."),
      409: {
        description:
          "`expectedVersion` is stale or the action does not fit the record's state (or a decision on the record waits for approval, `approval-pending` naming the request: only a note or an assignment goes beside it; or, for an identity scoped to domains, the record's `effectKey` or `sequenceKey` is named by a record of a domain it may not act in, `key-in-other-domain`, ADR 0038); `record` is the record as it is now.",
        content: json(responses.actionConflictSchema),
      },
      422: error(
        "A corrected payload fails the kind's schema, or the envelope changes a field it may only add; or `assignee` names nobody, a person who cannot act on records, or a disabled person.",
      ),
    },
  },
  async ({ request, actor, params }) => {
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
  },
);
