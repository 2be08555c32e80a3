import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { claimReplays, claimSchema } from "@/lib/replays";

export const POST = apiRoute("replays.claim", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, claimSchema);
  return new Response(await claimReplays(data, actor), { headers: { "content-type": "application/json" } });
});
