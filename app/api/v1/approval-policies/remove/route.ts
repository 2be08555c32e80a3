import * as responses from "@/lib/openapi/responses";
import { ok, error } from "@/lib/openapi/parts";
import { listPolicies, removePolicy, policyRemoveSchema } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** POST /api/v1/approval-policies/remove: removes one policy; requests already waiting stay. */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/approval-policies/remove",
    operationId: "removeApprovalPolicy",
    summary: "Remove an approval policy",
    description: "Requests already waiting stay; logged as `approval-policy.removed`.",
    tag: "Approvals",
    access: { kind: "permission", permission: "users.manage" },
    body: policyRemoveSchema,
    answers: {
      ...ok("The policies left.", responses.approvalPolicyListSchema),
      404: error("No such policy."),
    },
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, policyRemoveSchema);
    await removePolicy(data, actor);
    return Response.json({ policies: await listPolicies() });
  },
);
