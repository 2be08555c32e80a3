import { approvalAnswer } from "@/lib/openapi/parts";
import { approveRequest } from "@/lib/actions";
import { approvalAnswerSchema } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** POST /api/v1/approvals/{approvalId}/approve: runs the stored decision, once. */
export const POST = apiRoute<{ approvalId: string }>(
  approvalAnswer(
    "approve",
    "approveRequest",
    "Approve a request",
    "Runs the stored decision exactly once, as the requester, approved by the caller; both names go to the record's history and the decision log.",
  ),
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, approvalAnswerSchema);
    return Response.json({ approval: await approveRequest(params.approvalId, data.reason, actor) });
  },
);
