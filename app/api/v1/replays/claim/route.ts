import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { claimReplays, claimSchema } from "@/lib/replays";

export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/replays/claim",
    operationId: "claimReplays",
    summary: "Claim due replays",
    description:
      "Each replay is claimed by one consumer at a time, for `leaseSeconds`; an abandoned claim becomes claimable again.",
    tag: "Replays",
    access: { kind: "permission", permission: "replays.claim" },
    body: claimSchema,
    answers: ok("The claimed replays (none when nothing is due).", responses.claimedReplaysSchema),
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, claimSchema);
    return new Response(await claimReplays(data, actor), { headers: { "content-type": "application/json" } });
  },
);
