import { approvalAnswerSchema, withdrawOwnRequest } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** POST /api/v1/approvals/{approvalId}/withdraw: the requester takes back their pending request. */
export const POST = apiRoute<{ approvalId: string }>("reviews.act", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, approvalAnswerSchema);
  return Response.json({ approval: await withdrawOwnRequest(params.approvalId, data.reason, actor) });
});
