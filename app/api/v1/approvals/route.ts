import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { listApprovals } from "@/lib/actions";
import { approvalListQuerySchema } from "@/lib/approvals";
import { apiRoute, parseQuery } from "@/lib/http/route";

/** GET /api/v1/approvals?status=&reviewId=: the requests, and how many wait for the caller. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/approvals",
    operationId: "listApprovals",
    summary: "Approval requests",
    description:
      "Newest first (at most 200); `status` defaults to `pending`. Requests past their expiry are marked `expired` first.",
    tag: "Approvals",
    access: { kind: "permission", permission: "reviews.read" },
    query: approvalListQuerySchema,
    answers: ok("The requests, and how many wait for the caller.", responses.approvalListSchema),
  },
  async ({ request, actor }) => {
    const query = parseQuery(request, approvalListQuerySchema);
    return Response.json(await listApprovals(query, actor));
  },
);
