import { validationError } from "@/lib/http/errors";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { intakeReports } from "@/lib/reviews/intake";
import { batchSchema, type ReportInput, reportSchema } from "@/lib/reviews/schema";

/**
 * Per-item results: valid items are recorded, invalid ones are answered with their 400 and the
 * fields they lack, so one bad record does not hold back 499 good ones.
 */
export const POST = apiRoute("reviews.report", async ({ request, actor }) => {
  const { records } = await parseJsonBody(request, batchSchema);
  const valid: { index: number; input: ReportInput }[] = [];
  const results: unknown[] = records.map((raw, index) => {
    const parsed = reportSchema.safeParse(raw);
    if (parsed.success) {
      valid.push({ index, input: parsed.data });
      return null;
    }
    const error = validationError(parsed.error, `records.${index}`);
    return { index, status: 400, error: { code: error.code, message: error.message, issues: error.issues } };
  });
  const recorded = valid.length
    ? await intakeReports(
        valid.map((v) => v.input),
        actor,
      )
    : [];
  recorded.forEach((result, i) => {
    const index = valid[i]!.index;
    results[index] = {
      index,
      status: result.created ? 201 : 200,
      id: result.id,
      recordStatus: result.status,
      attempts: result.attempts,
    };
  });
  return Response.json({ results, recorded: recorded.length, rejected: records.length - recorded.length });
});
