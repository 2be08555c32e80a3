import { listDecisions, auditListQuerySchema } from "@/lib/audit";
import { apiRoute, parseQuery } from "@/lib/http/route";

export const GET = apiRoute("audit.read", async ({ request }) => {
  const query = parseQuery(request, auditListQuerySchema);
  return Response.json(await listDecisions(query));
});
