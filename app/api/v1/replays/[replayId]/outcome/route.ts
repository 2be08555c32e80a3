import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { reportReplayOutcome, outcomeSchema } from "@/lib/replays";

export const POST = apiRoute<{ replayId: string }>("replays.claim", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, outcomeSchema);
  if (!isUuid(params.replayId)) throw notFound(`no replay ${params.replayId}`);
  return Response.json(await reportReplayOutcome(params.replayId, data, actor));
});
