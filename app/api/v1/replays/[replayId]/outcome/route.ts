import * as responses from "@/lib/openapi/responses";
import { replayIdParams, ok, error } from "@/lib/openapi/parts";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { reportReplayOutcome, outcomeSchema } from "@/lib/replays";

export const POST = apiRoute<{ replayId: string }>(
  {
    method: "POST",
    route: "/api/v1/replays/[replayId]/outcome",
    operationId: "reportReplayOutcome",
    summary: "Report what a replay did",
    description: "Accepted only from the actor whose claim holds the replay.",
    tag: "Replays",
    access: { kind: "permission", permission: "replays.claim" },
    params: replayIdParams,
    body: outcomeSchema,
    answers: {
      ...ok("The outcome was recorded.", responses.outcomeResultSchema),
      403: error("Another actor holds the claim (`not-claim-holder`), or the role may not claim replays."),
      404: error("No replay with this id."),
      409: error("The replay is not claimed (`not-claimed`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, outcomeSchema);
    if (!isUuid(params.replayId)) throw notFound(`no replay ${params.replayId}`);
    return Response.json(await reportReplayOutcome(params.replayId, data, actor));
  },
);
