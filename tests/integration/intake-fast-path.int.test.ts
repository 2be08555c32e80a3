/**
 * The intake fast path (docs/decisions/0025-intake-fast-path.md): the console's own node:http
 * server (lib/server/console-server.ts consoleRequestListener) answers bearer POSTs to
 * /api/v1/reviews and /api/v1/reviews/batch itself, over real sockets, with the same answers,
 * headers, log entries and metrics as the Next route; everything else reaches Next. Next's
 * handler is stood in for by one that answers 299 and counts, so a request that fell through
 * to Next shows.
 */
import { randomUUID } from "node:crypto";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as batchRoute } from "@/app/api/v1/reviews/batch/route";
import { POST as reportRoute } from "@/app/api/v1/reviews/route";
import { config } from "@/lib/config";
import { API_POLICY, baseSecurityHeaders } from "@/lib/http/security-headers";
import { processMetrics } from "@/lib/metrics/process";
import { consoleRequestListener } from "@/lib/server/console-server";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";

const database = setupTestDatabase();

const NEXT_STATUS = 299;
let nextCalls = 0;
let server: Server;
let base: string;

beforeAll(async () => {
  // The address first: the listener builds request URLs from it, as Next does.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  server.on(
    "request",
    consoleRequestListener(
      (_req, res) => {
        nextCalls += 1;
        res.writeHead(NEXT_STATUS).end();
      },
      { hostname: "127.0.0.1", port, fastPath: true },
    ),
  );
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const tag = () => randomUUID().slice(0, 8);

function reportOf(overrides: Record<string, unknown> = {}) {
  const t = tag();
  return {
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: "look at it",
    attempts: 1,
    message: { id: `fast-${t}`, kind: "invoice.reminder", effectKey: `e-${t}`, payload: { n: t } },
    ...overrides,
  };
}

async function post(
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
) {
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers,
    body: options.rawBody ?? JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** How many answers the HTTP histogram and the fast path's counter hold for the route. */
async function counted(route: string, status: number) {
  const { httpDuration, fastPath } = processMetrics();
  const histogram = await httpDuration.get();
  const count = histogram.values.find(
    (v) =>
      v.metricName?.endsWith("_count") &&
      v.labels.route === route &&
      v.labels.method === "POST" &&
      v.labels.status === String(status),
  );
  const fast = (await fastPath.get()).values.find((v) => v.labels.route === route);
  return { answers: count?.value ?? 0, fast: fast?.value ?? 0 };
}

const decisions = (actor: string) =>
  withClient(database.current.url, async (c) => {
    const { rows } = await c.query(
      "SELECT action, (details->>'method') || ' ' || (details->>'path') AS route FROM decision_log WHERE actor = $1 ORDER BY seq",
      [actor],
    );
    return rows as { action: string; route: string | null }[];
  });

function expectSecurityHeaders(headers: Headers) {
  expect(headers.get("content-security-policy")).toBe(API_POLICY);
  for (const [name, value] of Object.entries(baseSecurityHeaders({ https: false }))) {
    expect(headers.get(name), name).toBe(value);
  }
  expect(headers.get("strict-transport-security")).toBeNull();
}

describe("intake fast path", () => {
  it("records a report (201), joins a duplicate (200), with the route's body, headers, log entry and metrics", async () => {
    const name = `fast-${tag()}`;
    const token = await tokenFor("consumer", name);
    const before = await counted("/api/v1/reviews", 201);
    const calls = nextCalls;
    const report = reportOf();

    const created = await post("/api/v1/reviews", { token, body: report });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), status: "open", attempts: 1 });
    expect(created.headers.get("content-type")).toBe("application/json");
    expectSecurityHeaders(created.headers);

    const again = await post("/api/v1/reviews", { token, body: { ...report, attempts: 2 } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: created.body.id, status: "open", attempts: 2 });

    expect(nextCalls, "Next never saw them").toBe(calls);
    const after = await counted("/api/v1/reviews", 201);
    expect(after.answers - before.answers).toBe(1);
    expect(after.fast - before.fast).toBe(2);
    expect((await decisions(`token:${name}`)).map((d) => d.action)).toContain("review.reported");
  });

  it("answers a batch with mixed items per item, as the route does", async () => {
    const token = await tokenFor("consumer");
    const lacking: Record<string, unknown> = reportOf();
    delete lacking.requiredCheck;
    const records = [reportOf(), lacking, reportOf()];
    const got = await post("/api/v1/reviews/batch", { token, body: { records } });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ recorded: 2, rejected: 1 });
    expect(got.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 201]);
    expect(got.body.results[1]).toMatchObject({
      index: 1,
      error: { code: "invalid-request", issues: [expect.objectContaining({ path: "records.1.requiredCheck" })] },
    });
    expectSecurityHeaders(got.headers);

    // The same batch again through the Next route's handler: the same per-item answers.
    const viaRoute = await call(batchRoute, { token, body: { records } });
    expect(viaRoute.status).toBe(200);
    expect(viaRoute.body.results.map((r: { status: number }) => r.status)).toEqual([200, 400, 200]);
    expect(viaRoute.body.results[1]).toEqual(got.body.results[1]);
    expect(viaRoute.body.results[0].id).toBe(got.body.results[0].id);
  });

  it("refuses bad input with the route's 4xx bodies, naming the field", async () => {
    const token = await tokenFor("consumer");
    const lacking: Record<string, unknown> = reportOf();
    delete lacking.requiredCheck;
    const cases: { rawBody: string; headers?: Record<string, string>; status: number; code: string }[] = [
      { rawBody: "{not json", status: 400, code: "invalid-json" },
      { rawBody: JSON.stringify(lacking), status: 400, code: "invalid-request" },
      {
        rawBody: JSON.stringify(reportOf()),
        headers: { "content-type": "text/plain" },
        status: 415,
        code: "unsupported-media-type",
      },
    ];
    for (const c of cases) {
      const fast = await post("/api/v1/reviews", { token, rawBody: c.rawBody, headers: c.headers });
      expect(fast.status, c.code).toBe(c.status);
      expect(fast.body.error.code).toBe(c.code);
      expectSecurityHeaders(fast.headers);
      const viaRoute = await call(reportRoute, {
        token,
        rawBody: c.rawBody,
        headers: { "content-type": "application/json", ...c.headers },
      });
      expect({ status: fast.status, body: fast.body }).toEqual(viaRoute);
    }
    const missing = await post("/api/v1/reviews", { token, rawBody: JSON.stringify(lacking) });
    expect(missing.body.error.issues).toEqual([expect.objectContaining({ path: "requiredCheck" })]);
  });

  it("refuses a body past the limit (413), declared or streamed, and the connection answers", async () => {
    const token = await tokenFor("consumer");
    const big = JSON.stringify({ ...reportOf(), padding: "x".repeat(config().MAX_BODY_BYTES) });
    const declared = await post("/api/v1/reviews", { token, rawBody: big });
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe("body-too-large");

    // Chunked, no Content-Length: counted while it streams.
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}/api/v1/reviews`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      for (let i = 0; i < 20; i += 1) req.write(big.slice(i * (big.length / 20), (i + 1) * (big.length / 20)));
      req.end();
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe("body-too-large");
  });

  it("refuses an unknown token (401, nothing in the decision log) and a wrong role (403, logged)", async () => {
    const unknown = await post("/api/v1/reviews", { token: `rc_${tag()}`, body: reportOf() });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe("unauthenticated");
    expectSecurityHeaders(unknown.headers);
    const malformed = await post("/api/v1/reviews", { body: reportOf(), headers: { authorization: "Bearer a b" } });
    expect(malformed.status).toBe(401);

    const name = `auditor-${tag()}`;
    const auditor = await tokenFor("auditor", name);
    const before = await counted("/api/v1/reviews/batch", 403);
    const refused = await post("/api/v1/reviews/batch", { token: auditor, body: { records: [reportOf()] } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(await decisions(`token:${name}`)).toEqual([
      { action: "authorization.refused", route: "POST /api/v1/reviews/batch" },
    ]);
    const after = await counted("/api/v1/reviews/batch", 403);
    expect(after.answers - before.answers).toBe(1);
    expect(after.fast - before.fast).toBe(1);
  });

  it("leaves everything else to Next: no bearer token, cookies, other methods and paths, or switched off", async () => {
    const token = await tokenFor("consumer");
    const calls = nextCalls;
    const before = await counted("/api/v1/reviews", 401);
    expect((await post("/api/v1/reviews", { body: reportOf() })).status).toBe(NEXT_STATUS);
    expect(
      (await post("/api/v1/reviews", { body: reportOf(), headers: { cookie: "review-console.session_token=x" } }))
        .status,
    ).toBe(NEXT_STATUS);
    expect((await post("/api/v1/reviews", { body: reportOf(), headers: { authorization: "Basic eDp5" } })).status).toBe(
      NEXT_STATUS,
    );
    expect((await post("/api/v1/reviews/", { token, body: reportOf() })).status).toBe(NEXT_STATUS);
    expect((await post("/api/v1/reviews/stats", { token, body: reportOf() })).status).toBe(NEXT_STATUS);
    const list = await fetch(`${base}/api/v1/reviews`, { headers: { authorization: `Bearer ${token}` } });
    expect(list.status).toBe(NEXT_STATUS);
    expect(nextCalls - calls).toBe(6);
    expect((await counted("/api/v1/reviews", 401)).fast).toBe(before.fast);

    // A query string does not matter to the route, nor here.
    expect((await post("/api/v1/reviews?x=1", { token, body: reportOf() })).status).toBe(201);

    const off = createServer(
      consoleRequestListener(
        (_req, res) => {
          nextCalls += 1;
          res.writeHead(NEXT_STATUS).end();
        },
        { hostname: "127.0.0.1", port: 0, fastPath: false },
      ),
    );
    await new Promise<void>((resolve) => off.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = off.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/reviews`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(reportOf()),
      });
      expect(response.status).toBe(NEXT_STATUS);
    } finally {
      off.closeAllConnections();
      await new Promise((resolve) => off.close(resolve));
    }
  });
});
