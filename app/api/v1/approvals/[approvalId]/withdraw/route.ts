import * as responses from "@/lib/openapi/responses";
import { approvalIdParams, ok, error } from "@/lib/openapi/parts";
import { approvalAnswerSchema, withdrawOwnRequest } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** POST /api/v1/approvals/{approvalId}/withdraw: the requester takes back their pending request. */
export const POST = apiRoute<{ approvalId: string }>(
  {
    method: "POST",
    route: "/api/v1/approvals/[approvalId]/withdraw",
    operationId: "withdrawRequest",
    summary: "Withdraw your own pending request",
    description:
      "The request becomes `withdrawn`; nothing of its decision runs. Logged as `approval.withdrawn` with the reason.",
    tag: "Approvals",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "Only whoever asked (`403 not-requester`); anyone else approves or rejects it.",
    },
    params: approvalIdParams,
    body: approvalAnswerSchema,
    answers: {
      ...ok("The request as it now is.", responses.approvalAnswerBodySchema),
      404: error("No approval request with this id (or one the caller may not see)."),
      409: error("Already answered, expired or withdrawn (`already-decided`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, approvalAnswerSchema);
    return Response.json({ approval: await withdrawOwnRequest(params.approvalId, data.reason, actor) });
  },
);
