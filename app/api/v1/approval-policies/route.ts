import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { listPolicies, setPolicy, policySetSchema } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** GET /api/v1/approval-policies: which decisions need a second person, per domain. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/approval-policies",
    operationId: "listApprovalPolicies",
    summary: "Approval policies",
    tag: "Approvals",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("Every policy, by domain (the default, null, first) and decision.", responses.approvalPolicyListSchema),
  },
  async () => Response.json({ policies: await listPolicies() }),
);

/** PUT /api/v1/approval-policies: sets one policy (decision, domain). */
export const PUT = apiRoute(
  {
    method: "PUT",
    route: "/api/v1/approval-policies",
    operationId: "setApprovalPolicy",
    summary: "Set an approval policy",
    description: "Creates or replaces the policy of (decision, domain); logged as `approval-policy.set`.",
    tag: "Approvals",
    access: { kind: "permission", permission: "users.manage" },
    body: policySetSchema,
    answers: ok("The policy.", responses.approvalPolicyAnswerSchema),
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, policySetSchema);
    return Response.json({ policy: await setPolicy(data, actor) });
  },
);
