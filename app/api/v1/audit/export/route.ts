import { z } from "zod";
import { exportDecisions, auditExportQuerySchema } from "@/lib/audit";
import { apiRoute, parseQuery } from "@/lib/http/route";

export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/audit/export",
    operationId: "exportDecisions",
    summary: "Export the decision log",
    description: "Streamed, oldest first, as the log was when the export started.",
    tag: "Decision log",
    access: { kind: "permission", permission: "audit.read" },
    query: auditExportQuerySchema,
    answers: {
      200: {
        description: "The entries, one per line (`ndjson`) or one per row after a header row (`csv`).",
        content: { "application/x-ndjson": z.string(), "text/csv": z.string() },
        headers: z.object({
          "content-disposition": z
            .string()
            .meta({ description: '`attachment; filename="decision-log-<YYYY-MM-DD>.<ndjson|csv>"`' }),
        }),
      },
    },
  },
  async ({ request }) => {
    const { format, ...filter } = parseQuery(request, auditExportQuerySchema);
    return exportDecisions(filter, format);
  },
);
