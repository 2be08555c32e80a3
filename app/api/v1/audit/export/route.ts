import { exportDecisions, auditExportQuerySchema } from "@/lib/audit";
import { apiRoute, parseQuery } from "@/lib/http/route";

export const GET = apiRoute("audit.read", async ({ request }) => {
  const { format, ...filter } = parseQuery(request, auditExportQuerySchema);
  return exportDecisions(filter, format);
});
