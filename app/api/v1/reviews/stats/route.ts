import { grantsOf, recordScope } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { reviewStats } from "@/lib/reviews";

/** The counts of the records the caller may read (their domains: ADR 0030). */
export const GET = apiRoute("reviews.read", async ({ actor }) =>
  Response.json(await reviewStats(await recordScope(grantsOf(actor)))),
);
