import { listDecisions } from "@/lib/audit/list";
import { auditListQuerySchema } from "@/lib/audit/schema";
import { apiRoute, parseQuery } from "@/lib/http/route";

export const GET = apiRoute("audit.read", async ({ request }) => {
  const query = parseQuery(request, auditListQuerySchema);
  return Response.json(await listDecisions(query));
});
