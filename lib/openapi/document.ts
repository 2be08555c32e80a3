import { createHash } from "node:crypto";
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import packageJson from "@/package.json" with { type: "json" };
import { PERMISSIONS } from "@/lib/access/client";
import { type ApiOperation, accessText, documentedAnswers, HTTP_METHODS, openApiPath } from "./operation";

// The OpenAPI 3.1 document, built by zod-openapi from the definitions the route handlers carry
// (apiRoute's first argument, or `documented`'s): their schemas are the ones the handlers
// validate with. Served by app/api/openapi.json; the route modules come from the generated list
// app/api/route-modules.generated.ts.

/** A route module as the generated list holds it: its exports, some of them handlers. */
export type RouteModules = readonly { route: string; module: Record<string, unknown> }[];

/** Every operation the route modules' handlers serve, in the order of the list. */
export function routeDefinitions(modules: RouteModules): ApiOperation[] {
  return modules.flatMap(({ module }) =>
    HTTP_METHODS.flatMap((method) => {
      const handler = module[method] as { definitions?: readonly ApiOperation[] } | undefined;
      return handler?.definitions ?? [];
    }),
  );
}

export const BEARER_SCHEME = "bearerToken";
export const COOKIE_SCHEME = "sessionCookie";

/**
 * parseQuery takes any object schema; zod-openapi's query parameters need a z.object. An
 * intersection of objects (the decision log's filters and its page) is their fields, the same
 * field schemas, in one object.
 */
export function queryObject(schema: z.ZodType): z.ZodObject {
  const def = schema._zod.def;
  if (def.type === "object") return schema as z.ZodObject;
  if (def.type === "intersection") {
    const { left, right } = def as unknown as { left: z.ZodType; right: z.ZodType };
    return z.object({ ...queryObject(left).shape, ...queryObject(right).shape });
  }
  throw new Error(`a query schema must be an object or an intersection of objects, not ${def.type}`);
}

function security(operation: ApiOperation): Record<string, string[]>[] {
  if (operation.access.kind === "public") return [];
  if (operation.access.kind === "session") return [{ [COOKIE_SCHEME]: [] }];
  return [{ [BEARER_SCHEME]: [] }, { [COOKIE_SCHEME]: [] }];
}

function operationObject(operation: ApiOperation): ZodOpenApiOperationObject {
  const { access } = operation;
  const responses = Object.fromEntries(
    Object.entries(documentedAnswers(operation)).map(([status, answer]) => [
      status,
      {
        description: answer.description,
        ...(answer.content
          ? { content: Object.fromEntries(Object.entries(answer.content).map(([type, schema]) => [type, { schema }])) }
          : {}),
        ...(answer.headers ? { headers: answer.headers } : {}),
      },
    ]),
  );
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: [accessText(access), operation.description].filter(Boolean).join("\n\n"),
    tags: [operation.tag],
    security: security(operation),
    ...(access.kind === "permission"
      ? { "x-permission": access.permission, "x-roles": [...PERMISSIONS[access.permission]] }
      : {}),
    ...(operation.params || operation.query
      ? {
          requestParams: {
            ...(operation.params ? { path: operation.params } : {}),
            ...(operation.query ? { query: queryObject(operation.query) } : {}),
          },
        }
      : {}),
    ...(operation.body
      ? { requestBody: { required: true, content: { "application/json": { schema: operation.body } } } }
      : {}),
    responses,
  };
}

const TAGS = [
  { name: "Review records", description: "What consumers report, and what people do with it." },
  { name: "Replays", description: "How consumers take replays and report their outcomes." },
  { name: "Decision log", description: "The append-only, hash-chained log of every decision." },
  {
    name: "Operations",
    description: "Bulk operations and the automatic replay of ready records (docs/operations.md).",
  },
  { name: "People and tokens", description: "Who signs in and which programs hold tokens (admin)." },
  { name: "Domains", description: "Domains of message kinds and the roles granted in them (admin, ADR 0029)." },
  { name: "Notifications", description: "Outgoing webhooks and their deliveries (admin)." },
  { name: "Saved views", description: "Filters and sorts of the queue kept under a name, one's own or shared." },
  { name: "Approvals", description: "Decisions that wait for a second person, and the policies that say which." },
  { name: "Sign-in", description: "Better Auth's endpoints the console serves under /api/auth." },
  { name: "Service", description: "Health, metrics and this document." },
];

export function buildOpenApiDocument(modules: RouteModules) {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of routeDefinitions(modules)) {
    const path = operation.path ?? openApiPath(operation.route);
    const item = (paths[path] ??= {});
    const method = operation.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    if (item[method]) throw new Error(`two operations for ${operation.method} ${path}`);
    item[method] = operationObject(operation);
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Review Console API",
      version: packageJson.version,
      // package.json says UNLICENSED: proprietary, no licence granted (an SPDX LicenseRef, not an SPDX id).
      license: { name: "Proprietary (UNLICENSED)", identifier: "LicenseRef-Proprietary" },
      description:
        'The manual route for task queues: review records, controlled replay, decision log. Programs send `Authorization: Bearer <token>`; people in the console are signed in by the session cookie. Every 4xx answer of /api/v1 is `{"error": {"code", "message", "issues"?}}` and changes nothing.',
    },
    // Relative: the document describes the console that serves it, at whatever address.
    servers: [{ url: "/", description: "The console that serves this document" }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: "An API token (`rct_…`), made by `review-console token add` or an admin in the console.",
        },
        [COOKIE_SCHEME]: {
          type: "apiKey",
          in: "cookie",
          name: "review-console.session_token",
          description:
            "The HttpOnly session cookie of a signed-in person (`__Secure-review-console.session_token` over https). A request with it that changes something must come from this site.",
        },
      },
    },
  });
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

let served: { text: string; etag: string } | undefined;

/** The document as served: built once per process (it changes only with the code), and its ETag. */
export function servedDocument(modules: RouteModules): { text: string; etag: string } {
  if (!served) {
    const text = JSON.stringify(buildOpenApiDocument(modules));
    served = { text, etag: `"${createHash("sha256").update(text).digest("base64url").slice(0, 32)}"` };
  }
  return served;
}
