import { listPolicies, removePolicy, policyRemoveSchema } from "@/lib/approvals";
import { apiRoute, parseJsonBody } from "@/lib/http/route";

/** POST /api/v1/approval-policies/remove: removes one policy; requests already waiting stay. */
export const POST = apiRoute("users.manage", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, policyRemoveSchema);
  await removePolicy(data, actor);
  return Response.json({ policies: await listPolicies() });
});
