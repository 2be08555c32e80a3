import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { reviewStats } from "@/lib/reviews";

/** The counts of the records the caller may read (their domains: ADR 0030). */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/reviews/stats",
    operationId: "getReviewStats",
    summary: "Counts by status, category and reason",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    answers: ok("The counts and the age of the oldest open record.", responses.reviewStatsSchema),
  },
  async ({ actor }) => Response.json(await reviewStats(await recordScope(grantsOf(actor)))),
);
