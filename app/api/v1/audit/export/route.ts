import { exportDecisions } from "@/lib/audit/export";
import { auditExportQuerySchema } from "@/lib/audit/schema";
import { apiRoute, parseQuery } from "@/lib/http/route";

export const GET = apiRoute("audit.read", async ({ request }) => {
  const { format, ...filter } = parseQuery(request, auditExportQuerySchema);
  return exportDecisions(filter, format);
});
