import { grantsOf } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { listAutoReplaySettings } from "@/lib/actions";

/** GET /api/v1/operations/auto-replay: per kind, whether ready gap records replay by themselves. */
export const GET = apiRoute("operations.read", async ({ actor }) => {
  return Response.json({ kinds: await listAutoReplaySettings(grantsOf(actor)) });
});
