import * as responses from "@/lib/openapi/responses";
import { error, ok } from "@/lib/openapi/parts";
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
export const reportReview = apiRoute(
  {
    method: "POST",
    route: "/api/v1/reviews",
    operationId: "reportReview",
    summary: "Report a record",
    description:
      "A consumer reports a message it could not process safely. An open record of the same message (its `message.id`, or a fingerprint of the raw message) is updated, never duplicated.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.report" },
    body: reportSchema,
    answers: {
      403: error(
        "The role may not report, or a token scoped to a domain reported a kind of another domain or of none (`outside-domain`, naming `message.kind`; ADR 0029), or a message whose id is that of an active record of such a kind (`outside-domain`, naming `message.id`; ADR 0038): nothing is written. Refusals are written to the decision log.",
      ),
      409: error(
        "A token scoped to a domain reported an `effectKey` or `sequenceKey` that records (or the effect journal) of another domain already name (`key-in-other-domain`, naming `message.effectKey` or `message.sequenceKey` and that domain; ADR 0038): nothing is written.",
      ),
      ...ok("An open record of the same message existed and was updated.", responses.intakeResultSchema),
      ...ok("A new record.", responses.intakeResultSchema, 201),
    },
  },
  async ({ request, actor }) => {
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
  },
);

/**
 * POST /api/v1/reviews/batch. Per-item results: valid items are recorded, invalid ones are
 * answered with their 400 and the fields they lack, so one bad record does not hold back 499
 * good ones.
 */
export const reportReviewBatch = apiRoute(
  {
    method: "POST",
    route: "/api/v1/reviews/batch",
    operationId: "reportReviewBatch",
    summary: "Report up to 500 records",
    description:
      "Each item is validated on its own: valid ones are recorded, invalid ones answered with their 400 in `results`, and a scoped token's items of kinds outside its domain with their 403 (`outside-domain`, ADR 0029); a scoped token's items landing on another domain's record (403 `outside-domain` naming `message.id`) or naming another domain's key (409 `key-in-other-domain`) likewise (ADR 0038).",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.report" },
    body: batchSchema,
    answers: ok("A result per item, in order.", responses.batchResultSchema),
  },
  async ({ request, actor, route }) => {
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
  },
);
