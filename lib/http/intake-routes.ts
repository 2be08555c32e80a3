import { validationError } from "@/lib/http/errors";
import { reportDomainRefusal } from "@/lib/access";
import { recordForbidden, refusedRequest } from "@/lib/audit";
import { refusalBody, refusalStatus } from "@/lib/http/refusal-response";
import { apiRoute, jsonAnswer, parseJsonBody } from "@/lib/http/route";
import {
  intakeOutcomes,
  intakeReport,
  isRefused,
  type Report,
  rawMessageOf,
  rawMessagesOfRecords,
  batchSchema,
  reportSchema,
} from "@/lib/reviews";

// The two intake handlers, framework-free (a request in, a JsonAnswer out, lib/http/route.ts):
// Next's routes (app/api/v1/reviews/route.ts, .../batch/route.ts) export them as their POST, and the console's
// own server answers bearer requests to the same paths with the very same functions, without
// Next's request pipeline (lib/server/intake-fast-path.ts, docs/decisions/0025-intake-fast-path.md).
// One definition, so the two ways in cannot answer differently.

/** POST /api/v1/reviews: one report; 201 when it made a record, 200 when it joined one. */
export const reportReview = apiRoute("reviews.report", async ({ request, actor }) => {
  const { data, text } = await parseJsonBody(request, reportSchema, { asReceived: true });
  const rawMessage = rawMessageOf(text);
  // A scoped token reports only its domain's kinds (ADR 0029).
  const outside = await reportDomainRefusal(actor, data.message);
  if (outside) throw outside;
  // Joined with concurrent reports of the same actor into one statement (lib/reviews/intake-coalescer.ts).
  // Rejects with a Refusal when a scoped reporter's message lands on another domain's record or
  // names another domain's key (docs/decisions/0038-keys-across-domains.md); apiRoute answers it.
  const result = await intakeReport({ input: data, rawMessage }, actor);
  return jsonAnswer({ id: result.id, status: result.status, attempts: result.attempts }, result.created ? 201 : 200);
});

/**
 * POST /api/v1/reviews/batch. Per-item results: valid items are recorded, invalid ones are
 * answered with their 400 and the fields they lack, so one bad record does not hold back 499
 * good ones.
 */
export const reportReviewBatch = apiRoute("reviews.report", async ({ request, actor, route }) => {
  const { data, text } = await parseJsonBody(request, batchSchema, { asReceived: true });
  const rawMessages = rawMessagesOfRecords(text);
  const parsedItems: { index: number; report: Report }[] = [];
  const results: unknown[] = data.records.map((raw, index) => {
    const parsed = reportSchema.safeParse(raw);
    if (parsed.success) {
      parsedItems.push({ index, report: { input: parsed.data, rawMessage: rawMessages[index] } });
      return null;
    }
    const refusal = validationError(parsed.error, `records.${index}`);
    return { index, status: refusalStatus(refusal), error: refusalBody(refusal) };
  });
  // A scoped token's items of other domains' kinds are refused one by one (ADR 0029), each
  // logged as a refused authorization; the others are still recorded.
  const valid: typeof parsedItems = [];
  for (const item of parsedItems) {
    const outside = await reportDomainRefusal(actor, item.report.input.message);
    if (!outside) {
      valid.push(item);
      continue;
    }
    await recordForbidden(outside, refusedRequest(request, actor, route));
    results[item.index] = { index: item.index, status: refusalStatus(outside), error: refusalBody(outside) };
  }
  const recorded = valid.length
    ? await intakeOutcomes(
        valid.map((v) => v.report),
        actor,
      )
    : [];
  let written = 0;
  for (const [i, result] of recorded.entries()) {
    const index = valid[i]!.index;
    // Not written: another domain's record or key (ADR 0038), answered like a refused item.
    if (isRefused(result)) {
      if (result.refused.kind === "forbidden")
        await recordForbidden(result.refused, refusedRequest(request, actor, route));
      results[index] = { index, status: refusalStatus(result.refused), error: refusalBody(result.refused) };
      continue;
    }
    written += 1;
    results[index] = {
      index,
      status: result.created ? 201 : 200,
      id: result.id,
      recordStatus: result.status,
      attempts: result.attempts,
    };
  }
  return jsonAnswer({ results, recorded: written, rejected: data.records.length - written });
});
