import { listPolicies, setPolicy, policySetSchema } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** GET /api/v1/approval-policies: which decisions need a second person, per domain. */
export const GET = apiRoute("users.manage", async () => Response.json({ policies: await listPolicies() }));

/** PUT /api/v1/approval-policies: sets one policy (decision, domain). */
export const PUT = apiRoute("users.manage", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, policySetSchema);
  return Response.json({ policy: await setPolicy(data, actor) });
});
