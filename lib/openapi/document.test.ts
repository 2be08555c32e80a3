import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { ROUTE_MODULES } from "@/app/api/route-modules.generated";
import { checkDocumentedStatus, UndocumentedAnswer } from "@/lib/http/documented-status";
import { buildOpenApiDocument, queryObject, routeDefinitions } from "./document";
import { type ApiOperation, documentedAnswers, HTTP_METHODS, openApiPath } from "./operation";
import { apiRouteFiles, exportedMethods } from "../../tests/support/route-files";

const root = path.resolve(import.meta.dirname, "../..");
const routeFiles = apiRouteFiles(root);
const API_OPERATIONS = routeDefinitions(ROUTE_MODULES);
const document = buildOpenApiDocument(ROUTE_MODULES);

/** The Better Auth endpoints docs/api.md and docs/api-additions.md name, served by the catch-all. */
const BETTER_AUTH_PATHS = [
  "POST /api/auth/sign-in/email",
  "POST /api/auth/sign-out",
  "GET /api/auth/get-session",
  "GET /api/auth/list-sessions",
  "POST /api/auth/change-password",
  "POST /api/auth/reset-password",
];

function operationFor(method: string, route: string): ApiOperation | undefined {
  return API_OPERATIONS.find((operation) => operation.method === method && operation.route === route);
}

function documentedStatuses(method: string, openApi: string): string[] {
  const item = document.paths?.[openApi] as Record<string, { responses?: Record<string, unknown> }> | undefined;
  return Object.keys(item?.[method.toLowerCase()]?.responses ?? {});
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (swagger-parser)", async () => {
    expect(document.openapi).toBe("3.1.0");
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it("names its server (relative: the console serving it) and its licence, as linters and client generators expect", () => {
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expect(document.info.license).toMatchObject({ identifier: "LicenseRef-Proprietary" });
  });

  it("declares the bearer token and the session cookie, and every API operation accepts either", () => {
    expect(document.components?.securitySchemes?.bearerToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.components?.securitySchemes?.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie" });
    const reviews = document.paths?.["/api/v1/reviews"]?.post;
    expect(reviews?.security).toEqual([{ bearerToken: [] }, { sessionCookie: [] }]);
    expect(reviews?.description).toMatch(/^Roles: consumer \(permission `reviews\.report`\)/);
    expect(document.paths?.["/api/health"]?.get?.security).toEqual([]);
  });
});

describe("completeness: every route of app/api has its operations", () => {
  it("finds the route files and their methods", () => {
    // A guard on the reader below: if it found nothing, the tests after it would prove nothing.
    expect(routeFiles.length).toBeGreaterThanOrEqual(33);
    expect(exportedMethods("export const { GET, POST } = handlers;")).toEqual(["GET", "POST"]);
    expect(exportedMethods("export async function GET(request: Request) {}")).toEqual(["GET"]);
    expect(exportedMethods('export const PUT = apiRoute("x", h);\nexport const dynamic = "force-dynamic";')).toEqual([
      "PUT",
    ]);
  });

  const handlers = routeFiles
    .filter((file) => !file.route.includes("[..."))
    .flatMap((file) => file.handlers.map((handler) => ({ ...handler, file: file.file, route: file.route })));

  it.each(handlers.map((h) => [`${h.method} ${h.route}`, h] as const))("%s is in the document", (_, handler) => {
    const operation = operationFor(handler.method, handler.route);
    expect(operation, `${handler.file} exports ${handler.method} without its definition`).toBeDefined();
    expect(documentedStatuses(handler.method, openApiPath(handler.route)).length).toBeGreaterThan(0);
  });

  it("documents the Better Auth endpoints docs/api.md names, under the catch-all's methods", () => {
    const catchAll = routeFiles.find((file) => file.route === "/api/auth/[...all]");
    const methods = catchAll?.handlers.map((h) => h.method) ?? [];
    for (const endpoint of BETTER_AUTH_PATHS) {
      const [method, openApi] = endpoint.split(" ") as [string, string];
      expect(methods, endpoint).toContain(method);
      expect(documentedStatuses(method, openApi), endpoint).toContain("200");
    }
  });

  it("finds each route module's handlers with definitions of its own method and route", () => {
    expect(ROUTE_MODULES.map((entry) => entry.route).sort()).toEqual(routeFiles.map((file) => file.route).sort());
    for (const { route, module } of ROUTE_MODULES) {
      for (const method of HTTP_METHODS) {
        const handler = module[method] as { definitions?: readonly ApiOperation[] } | undefined;
        if (!handler) continue;
        // Better Auth's catch-all answers every method; only some of them serve an endpoint.
        if (!route.includes("[..."))
          expect(handler.definitions?.length, `${method} ${route} carries its definition`).toBe(1);
        for (const definition of handler.definitions ?? [])
          expect(`${definition.method} ${definition.route}`, definition.operationId).toBe(`${method} ${route}`);
      }
    }
  });

  it("has no operation without a route file that serves it", () => {
    const served = new Set(routeFiles.flatMap((file) => file.handlers.map((h) => `${h.method} ${file.route}`)));
    for (const operation of API_OPERATIONS) {
      expect(served, operation.operationId).toContain(`${operation.method} ${operation.route}`);
    }
  });

  it("gives every operation a unique operationId and path", () => {
    const ids = API_OPERATIONS.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(API_OPERATIONS.map((operation) => [operation.operationId, operation] as const))(
    "%s documents the refusals its sort has",
    (_, operation) => {
      const statuses = documentedStatuses(operation.method, operation.path ?? openApiPath(operation.route));
      const expected: string[] = [];
      if (operation.access.kind === "permission") expected.push("401", "403", "500");
      if (operation.access.kind === "session") expected.push("401", "500");
      if (operation.query || operation.body || operation.params) expected.push("400");
      if (operation.route !== "/api/health") expected.push("500");
      for (const status of expected)
        expect(statuses, `${operation.operationId} must document ${status}`).toContain(status);
      // The document says what the check of every answer enforces.
      expect(statuses.sort()).toEqual(Object.keys(documentedAnswers(operation)).sort());
    },
  );
});

describe("identity: the document is built from the schemas the handlers validate with", () => {
  const handlers = routeFiles.flatMap((file) =>
    file.handlers.map((h) => ({ ...h, route: file.route, file: file.file })),
  );

  it.each(handlers.map((h) => [`${h.method} ${h.route}`, h] as const))("%s", async (_, handler) => {
    if (handler.route.includes("[...")) return; // Better Auth's: see lib/openapi/better-auth.ts
    const operation = operationFor(handler.method, handler.route)!;
    for (const part of ["query", "body"] as const) {
      const ref = handler[part];
      if (!ref) {
        expect(operation[part], `${handler.file} validates no ${part}`).toBeUndefined();
        continue;
      }
      expect(ref.module, `${handler.file}: a schema defined in a route file cannot be shared; move it to lib/`).toMatch(
        /^@\//,
      );
      const exported = (await import(/* @vite-ignore */ ref.module)) as Record<string, unknown>;
      expect(exported[ref.name], `${ref.module} exports ${ref.name}`).toBeDefined();
      // The very object, not an equal copy.
      expect(operation[part] === exported[ref.name], `${handler.method} ${handler.route} ${part} is ${ref.name}`).toBe(
        true,
      );
    }
  });

  it("renders an intersection query (the decision log's) with the same field schemas", async () => {
    const { auditListQuerySchema, auditFilterSchema } = await import("@/lib/audit/schema");
    const object = queryObject(auditListQuerySchema);
    expect(object.shape.actor).toBe(auditFilterSchema.shape.actor);
    expect(Object.keys(object.shape)).toEqual(expect.arrayContaining(["from", "to", "cursor", "limit"]));
  });
});

describe("checkDocumentedStatus", () => {
  const stats = API_OPERATIONS.find((operation) => operation.operationId === "getReviewStats")!;

  it("passes a documented answer and throws on an undocumented status, naming route and status", () => {
    expect(() => checkDocumentedStatus(stats, 200)).not.toThrow();
    expect(() => checkDocumentedStatus(stats, 401)).not.toThrow();
    expect(() => checkDocumentedStatus(stats, 404)).toThrow(
      new UndocumentedAnswer(
        "GET /api/v1/reviews/stats answered 404, which its definition (its route.ts) does not document",
      ),
    );
  });

  it("never throws in production", () => {
    const before = process.env.NODE_ENV;
    try {
      (process.env as Record<string, string>).NODE_ENV = "production";
      expect(() => checkDocumentedStatus(stats, 418)).not.toThrow();
    } finally {
      (process.env as Record<string, string | undefined>).NODE_ENV = before;
    }
  });
});
