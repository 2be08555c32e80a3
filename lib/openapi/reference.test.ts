import { describe, expect, it } from "vitest";
import { PERMISSIONS } from "@/lib/access/client";
import { ROUTE_MODULES } from "@/app/api/route-modules.generated";
import { buildOpenApiDocument, routeDefinitions } from "./document";
import { openApiPath } from "./operation";
import { type OpenApiDocumentLike, referenceModel, type SchemaSummary, summarizeSchema } from "./reference";

const API_OPERATIONS = routeDefinitions(ROUTE_MODULES);
const model = referenceModel(JSON.parse(JSON.stringify(buildOpenApiDocument(ROUTE_MODULES))) as OpenApiDocumentLike);
const operations = model.tags.flatMap((tag) => tag.operations.map((operation) => ({ tag: tag.name, operation })));

/** Every schema reachable from `schema` without following references. */
function* walk(schema: SchemaSummary): Generator<SchemaSummary> {
  yield schema;
  for (const p of schema.properties) yield* walk(p.schema);
  for (const a of schema.alternatives) yield* walk(a);
  if (schema.items) yield* walk(schema.items);
  if (schema.values) yield* walk(schema.values);
}

describe("the API reference's model of the served document", () => {
  it("lists every operation of the table once, under its tag, with method, path and who may call it", () => {
    expect(operations).toHaveLength(API_OPERATIONS.length);
    for (const entry of API_OPERATIONS) {
      const path = entry.path ?? openApiPath(entry.route);
      const found = operations.filter(({ operation }) => operation.method === entry.method && operation.path === path);
      expect(found, `${entry.method} ${path}`).toHaveLength(1);
      const [{ tag, operation }] = found as [(typeof operations)[number]];
      expect(tag).toBe(entry.tag);
      expect(operation.summary).toBe(entry.summary);
      expect(operation.anchor).toBe(`op-${entry.operationId}`);
      if (entry.access.kind === "permission") {
        expect(operation.permission).toBe(entry.access.permission);
        expect(operation.roles).toEqual([...PERMISSIONS[entry.access.permission]]);
        expect(operation.credentials).toEqual(["bearer token", "session cookie"]);
      } else {
        expect(operation.roles).toEqual([]);
      }
    }
  });

  it("reads POST /api/v1/reviews: its body, its answers by status, the 503's Retry-After", () => {
    const report = operations.find((o) => o.operation.operationId === "reportReview")!.operation;
    expect(report).toMatchObject({ method: "POST", path: "/api/v1/reviews", roles: ["consumer"] });
    expect(report.description[0]).toMatch(/^Roles: consumer \(permission `reviews.report`\)/);
    expect(report.body?.content[0]).toMatchObject({
      mediaType: "application/json",
      schema: { ref: "ReportRequest" },
    });
    expect(report.responses.map((r) => r.status)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "413", "415", "500", "503"]),
    );
    const created = report.responses.find((r) => r.status === "201")!;
    expect(created.content[0]?.schema?.properties.map((p) => [p.name, p.required])).toEqual([
      ["id", true],
      ["status", true],
      ["attempts", true],
    ]);
    expect(report.responses.find((r) => r.status === "503")?.headers.map((h) => h.name)).toEqual(["retry-after"]);
  });

  it("every schema the page links to has its own section", () => {
    const anchors = new Set(model.schemas.map((s) => s.name));
    const refs = new Set<string>();
    const visit = (schema: SchemaSummary | undefined) => {
      for (const s of schema ? walk(schema) : []) if (s.ref) refs.add(s.ref);
    };
    for (const { operation } of operations) {
      operation.parameters.forEach((p) => visit(p.schema));
      operation.body?.content.forEach((c) => visit(c.schema));
      operation.responses.forEach((r) => r.content.forEach((c) => visit(c.schema)));
    }
    model.schemas.forEach((s) => visit(s.schema));
    expect(refs.size).toBeGreaterThan(10);
    expect([...refs].filter((ref) => !anchors.has(ref))).toEqual([]);
  });

  it("keeps the document's tag order and drops tags without operations", () => {
    expect(model.tags.map((t) => t.name)).toEqual(
      (buildOpenApiDocument(ROUTE_MODULES).tags ?? [])
        .map((t) => t.name)
        .filter((name) => operations.some((o) => o.tag === name)),
    );
  });
});

describe("summarizeSchema", () => {
  it("says a nullable reference is that schema or null, with the outer description", () => {
    expect(
      summarizeSchema({ anyOf: [{ $ref: "#/components/schemas/Assignee" }, { type: "null" }], description: "who" }),
    ).toMatchObject({ type: "Assignee", ref: "Assignee", nullable: true, description: "who" });
  });

  it("puts constraints in words and leaves out zod's safe-integer bounds", () => {
    expect(summarizeSchema({ type: "string", minLength: 1, maxLength: 200 }).facts).toEqual(["1 to 200 characters"]);
    expect(summarizeSchema({ type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }).facts).toEqual(
      [],
    );
    expect(summarizeSchema({ type: "integer", minimum: 1, maximum: 500 }).facts).toEqual(["1 to 500"]);
    expect(summarizeSchema({ type: "string", enum: ["open", "resolved"] }).facts).toEqual(["one of: open, resolved"]);
    expect(summarizeSchema({ type: "string", format: "uuid" }).facts).toEqual(["format uuid"]);
    expect(summarizeSchema({ type: ["string", "null"], maxLength: 5 })).toMatchObject({
      type: "string",
      nullable: true,
      facts: ["at most 5 characters"],
    });
  });

  it("reads objects, arrays, maps and alternatives without following references", () => {
    const summary = summarizeSchema({
      type: "object",
      properties: {
        items: { type: "array", items: { $ref: "#/components/schemas/ReviewListItem" } },
        counts: {
          type: "object",
          propertyNames: { type: "string", enum: ["a", "b"] },
          additionalProperties: { type: "integer" },
        },
        selection: {
          oneOf: [
            { type: "object", properties: { ids: { type: "array", items: { type: "string" } } } },
            { type: "object", properties: {} },
          ],
        },
      },
      required: ["items"],
    });
    expect(summary.properties.map((p) => [p.name, p.required])).toEqual([
      ["items", true],
      ["counts", false],
      ["selection", false],
    ]);
    expect(summary.properties[0]?.schema).toMatchObject({ type: "array", items: { ref: "ReviewListItem" } });
    expect(summary.properties[1]?.schema).toMatchObject({
      type: "map",
      values: { type: "integer" },
      facts: ["keys: one of: a, b"],
    });
    expect(summary.properties[2]?.schema.type).toBe("one of");
    expect(summary.properties[2]?.schema.alternatives).toHaveLength(2);
  });
});
