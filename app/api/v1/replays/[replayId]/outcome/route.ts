import { ApiError } from "@/lib/http/errors";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { reportReplayOutcome } from "@/lib/replays/outcome";
import { outcomeSchema } from "@/lib/replays/schema";
import { isUuid } from "@/lib/domain/ids";

export const POST = apiRoute<{ replayId: string }>("replays.claim", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, outcomeSchema);
  if (!isUuid(params.replayId)) throw new ApiError(404, "not-found", `no replay ${params.replayId}`);
  const result = await reportReplayOutcome(params.replayId, data, actor);
  if (!result.ok) throw new ApiError(result.status, result.code, result.message);
  return Response.json(result);
});
