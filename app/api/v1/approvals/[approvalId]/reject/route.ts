import { approvalAnswer } from "@/lib/openapi/parts";
import { rejectRequest } from "@/lib/actions";
import { approvalAnswerSchema } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** POST /api/v1/approvals/{approvalId}/reject: nothing but the request changes. */
export const POST = apiRoute<{ approvalId: string }>(
  approvalAnswer("reject", "rejectRequest", "Reject a request", "Nothing but the request changes."),
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, approvalAnswerSchema);
    return Response.json({ approval: await rejectRequest(params.approvalId, data.reason, actor) });
  },
);
