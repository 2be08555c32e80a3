import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { renewClaims, renewSchema } from "@/lib/replays";

export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/replays/renew",
    operationId: "renewReplayClaims",
    summary: "Keep claimed replays while working on them",
    description:
      "Extends the live claims this actor holds under `consumer` by `leaseSeconds` from now, so a slow but live consumer keeps them; a claim that already ran out is not renewed.",
    tag: "Replays",
    access: { kind: "permission", permission: "replays.claim" },
    body: renewSchema,
    answers: ok("The renewed claims.", responses.renewedClaimsSchema),
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, renewSchema);
    const renewed = await renewClaims(data, actor);
    return Response.json({
      items: renewed.map((r) => ({ replayId: r.replayId, claimExpiresAt: r.claimExpiresAt.toISOString() })),
    });
  },
);
