import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { renewClaims, renewSchema } from "@/lib/replays";

export const POST = apiRoute("replays.claim", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, renewSchema);
  const renewed = await renewClaims(data, actor);
  return Response.json({
    items: renewed.map((r) => ({ replayId: r.replayId, claimExpiresAt: r.claimExpiresAt.toISOString() })),
  });
});
