import { recordIdParams, ok, error } from "@/lib/openapi/parts";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, jsonAnswer, parseJsonBody } from "@/lib/http/route";
import { recordVerdict, verdictRequestSchema, recordVerdictSchema } from "@/lib/actions";

/**
 * POST /api/v1/reviews/{id}/verdict: what the contract would say if this record's replay (or a
 * proposed correction's) ran now, as the bulk dry run says it. Changes nothing.
 */
export const POST = apiRoute<{ id: string }>(
  {
    method: "POST",
    route: "/api/v1/reviews/[id]/verdict",
    operationId: "judgeReviewReplay",
    summary: "The contract's verdict for a record's replay, before it runs",
    description:
      "What `decide` would say if the record's replay (`replay`: its latest version) or a correction's (`correct-and-replay`: `payload` and missing `envelope` fields, built as the action builds them) ran now, judged exactly as a bulk operation's dry run judges a record: would-apply, would-suppress, would-hold-gap, would-hold-stale, would-hold-unknown, would-wait, invalid or not-eligible, and why. Changes nothing.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.act" },
    params: recordIdParams,
    body: verdictRequestSchema,
    answers: {
      ...ok("The verdict, and the record's version it was computed for.", recordVerdictSchema),
      404: error("No record with this id."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, verdictRequestSchema);
    if (!isUuid(params.id)) throw notFound(`no review record ${params.id}`);
    return jsonAnswer(await recordVerdict(params.id, data, actor));
  },
);
