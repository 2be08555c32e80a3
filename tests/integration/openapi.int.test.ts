import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GET as openApiRoute } from "@/app/api/openapi.json/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as groups } from "@/app/api/v1/reviews/groups/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { GET as stats } from "@/app/api/v1/reviews/stats/route";
import { POST as claim } from "@/app/api/v1/replays/claim/route";
import { POST as outcome } from "@/app/api/v1/replays/[replayId]/outcome/route";
import { GET as audit } from "@/app/api/v1/audit/route";
import { GET as verification } from "@/app/api/v1/audit/verification/route";
import { GET as listOperations, POST as createOperation } from "@/app/api/v1/operations/route";
import { GET as getOperation } from "@/app/api/v1/operations/[operationId]/route";
import { POST as dryRun } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { GET as items } from "@/app/api/v1/operations/[operationId]/items/route";
import { GET as operationLog } from "@/app/api/v1/operations/[operationId]/log/route";
import { GET as autoReplay } from "@/app/api/v1/operations/auto-replay/route";
import { PUT as setAutoReplay } from "@/app/api/v1/operations/auto-replay/[kind]/route";
import { GET as people, POST as invite } from "@/app/api/v1/people/route";
import { GET as tokens, POST as issueToken } from "@/app/api/v1/tokens/route";
import { POST as revokeToken } from "@/app/api/v1/tokens/[tokenId]/revoke/route";
import { GET as health } from "@/app/api/health/route";
import { apiRoute, type RouteDefinition } from "@/lib/http/route";
import { UndocumentedAnswer } from "@/lib/http/documented-status";
import { documentedAnswers } from "@/lib/openapi/operation";
import { routeDefinitions } from "@/lib/openapi/document";
import { ROUTE_MODULES } from "@/app/api/route-modules.generated";
import { setupTestDatabase } from "../support/database";
import { call, tokenFor } from "../support/http";

setupTestDatabase();

const API_OPERATIONS = routeDefinitions(ROUTE_MODULES);

/**
 * The body matches the schema the OpenAPI document gives this operation and status: the
 * response schemas (lib/openapi/responses.ts) are written by hand, so real answers check them.
 */
function expectDocumented(operationId: string, answer: { status: number; body: unknown }, status: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  const operation = API_OPERATIONS.find((o) => o.operationId === operationId);
  const schema = operation && documentedAnswers(operation)[status]?.content?.["application/json"];
  expect(schema, `${operationId} documents a JSON body for ${status}`).toBeDefined();
  const parsed = schema!.safeParse(answer.body);
  expect(parsed.success ? [] : parsed.error.issues, `${operationId} ${status}`).toEqual([]);
  // Parsing drops members a schema does not name: what is left must be all of the answer.
  expect(parsed.data, `${operationId} ${status}: a member the schema does not document`).toEqual(answer.body);
}

const message = () => ({
  id: `msg-openapi-${randomUUID()}`,
  kind: "invoice.reminder",
  effectKey: `invoice-${randomUUID()}:reminder`,
  payload: { schema: "2021-03", invoiceId: "417" },
});
const reportBody = (overrides: Record<string, unknown> = {}) => ({
  category: "manual-review",
  reason: "invalid-payload",
  requiredCheck: "correct payload.invoiceId",
  attempts: 1,
  message: message(),
  ...overrides,
});

describe("GET /api/openapi.json", () => {
  it("serves the document publicly, cacheable, and a 304 for its ETag", async () => {
    const first = await openApiRoute(new Request("http://localhost/api/openapi.json"));
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("cache-control")).toBe("public, max-age=3600, must-revalidate");
    const document = (await first.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/v1/reviews", "/api/openapi.json"]));

    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await openApiRoute(
      new Request("http://localhost/api/openapi.json", { headers: { "if-none-match": etag } }),
    );
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await openApiRoute(
      new Request("http://localhost/api/openapi.json", { headers: { "if-none-match": '"stale"' } }),
    );
    expect(other.status).toBe(200);
  });
});

describe("undocumented answers", () => {
  it("an answer of a status its definition does not document is thrown, naming route and status", async () => {
    const token = await tokenFor("auditor");
    const stats = API_OPERATIONS.find((operation) => operation.operationId === "getReviewStats") as RouteDefinition;
    const teapot = apiRoute(stats, async () => new Response(null, { status: 418 }));
    await expect(call(teapot, { token })).rejects.toThrow(
      new UndocumentedAnswer(
        "GET /api/v1/reviews/stats answered 418, which its definition (its route.ts) does not document",
      ),
    );
    // Refusals go through the same check: a 404 the stats never give.
    const notFound = apiRoute(stats, async () => {
      const { notFound: refusal } = await import("@/lib/domain/refusal");
      throw refusal("nothing");
    });
    await expect(call(notFound, { token })).rejects.toThrow(/GET \/api\/v1\/reviews\/stats answered 404/);
  });
});

describe("real answers match the schemas the document gives them", () => {
  it("review records, replays, the decision log", async () => {
    const consumer = await tokenFor("consumer");
    const owner = await tokenFor("owner");
    const auditor = await tokenFor("auditor");

    const sent = reportBody();
    const created = await call(report, { token: consumer, body: sent });
    expectDocumented("reportReview", created, 201);
    expectDocumented("reportReview", await call(report, { token: consumer, body: sent }), 200);
    expectDocumented(
      "reportReviewBatch",
      await call(batch, { token: consumer, body: { records: [reportBody(), { category: "nope" }] } }),
      200,
    );
    expectDocumented("listReviews", await call(list, { token: auditor, path: "/api/v1/reviews?limit=5" }), 200);
    expectDocumented("getReviewStats", await call(stats, { token: auditor }), 200);
    expectDocumented("listReviewGroups", await call(groups, { token: auditor }), 200);
    const id = created.body.id as string;
    expectDocumented("getReview", await call(detail, { token: auditor, params: { id } }), 200);
    expectDocumented("getReview", await call(detail, { token: auditor, params: { id: randomUUID() } }), 404);
    expectDocumented("listReviews", await call(list, {}), 401);
    expectDocumented("listReviews", await call(list, { token: consumer }), 403);

    const replayed = await call(act, {
      token: owner,
      params: { id },
      body: { action: "replay", expectedVersion: 2, reason: "fixed downstream", checkDone: true },
    });
    expectDocumented("actOnReview", replayed, 200);
    const stale = await call(act, {
      token: owner,
      params: { id },
      body: { action: "note", expectedVersion: 1, reason: "late" },
    });
    expectDocumented("actOnReview", stale, 409);

    const claimed = await call(claim, {
      token: consumer,
      body: { consumer: "openapi-test", kinds: ["invoice.reminder"] },
    });
    expectDocumented("claimReplays", claimed, 200);
    const replayId = (claimed.body.items as { replayId: string; reviewId: string }[]).find(
      (i) => i.reviewId === id,
    )?.replayId;
    expect(replayId).toBeDefined();
    expectDocumented(
      "reportReplayOutcome",
      await call(outcome, { token: consumer, params: { replayId: replayId! }, body: { outcome: "applied" } }),
      200,
    );

    expectDocumented("listDecisions", await call(audit, { token: auditor, path: "/api/v1/audit?limit=20" }), 200);
    expectDocumented("verifyDecisionLog", await call(verification, { token: auditor }), 200);
  });

  it("operations and the automatic replay switch", async () => {
    const consumer = await tokenFor("consumer");
    const owner = await tokenFor("owner");
    const created = await call(report, { token: consumer, body: reportBody() });
    const operation = await call(createOperation, {
      token: owner,
      body: { action: "note", reason: "openapi answers", selection: { type: "ids", ids: [created.body.id] } },
    });
    expectDocumented("createOperation", operation, 201);
    const params = { operationId: operation.body.id as string };
    expectDocumented("dryRunOperation", await call(dryRun, { token: owner, params, body: {} }), 200);
    expectDocumented("getOperation", await call(getOperation, { token: owner, params }), 200);
    expectDocumented("listOperationItems", await call(items, { token: owner, params }), 200);
    expectDocumented("listOperationLog", await call(operationLog, { token: owner, params }), 200);
    expectDocumented("listOperations", await call(listOperations, { token: owner }), 200);
    expectDocumented("listAutoReplay", await call(autoReplay, { token: owner }), 200);
    expectDocumented(
      "setAutoReplay",
      await call(setAutoReplay, {
        token: owner,
        params: { kind: "invoice.reminder" },
        body: { enabled: false, reason: "openapi answers" },
      }),
      200,
    );
  });

  it("people, tokens and health", async () => {
    const admin = await tokenFor("admin");
    const invited = await call(invite, {
      token: admin,
      body: { email: `openapi-${randomUUID()}@example.test`, role: "auditor", reason: "openapi answers" },
    });
    expectDocumented("invitePerson", invited, 201);
    expectDocumented("listPeople", await call(people, { token: admin }), 200);
    const issued = await call(issueToken, {
      token: admin,
      body: { name: `openapi-${randomUUID()}`, role: "consumer", expiresInDays: 7, reason: "openapi answers" },
    });
    expectDocumented("issueToken", issued, 201);
    expectDocumented("listTokens", await call(tokens, { token: admin }), 200);
    expectDocumented(
      "revokeToken",
      await call(revokeToken, { token: admin, params: { tokenId: issued.body.token.id }, body: { reason: "done" } }),
      200,
    );
    const up = await health();
    expectDocumented("getHealth", { status: up.status, body: await up.json() }, 200);
  });
});
