import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, jsonAnswer, parseJsonBody } from "@/lib/http/route";
import { recordVerdict, verdictRequestSchema } from "@/lib/actions";

/**
 * POST /api/v1/reviews/{id}/verdict: what the contract would say if this record's replay (or a
 * proposed correction's) ran now, as the bulk dry run says it. Changes nothing.
 */
export const POST = apiRoute<{ id: string }>("reviews.act", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, verdictRequestSchema);
  if (!isUuid(params.id)) throw notFound(`no review record ${params.id}`);
  return jsonAnswer(await recordVerdict(params.id, data, actor));
});
