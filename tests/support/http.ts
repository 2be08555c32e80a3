import { createApiToken } from "@/lib/auth";
import type { Permission, Role } from "@/lib/access/client";
import type { Documented, RouteDefinition } from "@/lib/http/route";

// Route handlers type their own params; the tests pass whatever the route under test expects.
type Handler = (request: Request, context: { params: Promise<any> }) => Promise<Response>;

export async function tokenFor(role: Role, name = `${role}-${Math.random().toString(36).slice(2, 8)}`) {
  return (await createApiToken(name, role)).token;
}

/**
 * The method and route (`/api/v1/reviews/[id]`) a handler serves: the definition it carries
 * (apiRoute's). Better Auth's catch-all is left out: one handler serves several operations.
 */
function routeOf(handler: Handler): { method: string; route: string } | undefined {
  const definitions = (handler as Partial<Documented>).definitions;
  return definitions?.length === 1 ? definitions[0] : undefined;
}

/** A definition for a handler a test makes up (`/api/test/...`): it documents 200 and apiRoute's own answers. */
export function testDefinition(permission: Permission, route = "/api/test/handler"): RouteDefinition {
  return {
    method: "GET",
    route,
    operationId: "testHandler",
    summary: "A handler of a test",
    tag: "Test",
    access: { kind: "permission", permission },
    answers: { 200: { description: "Whatever the test answers." } },
  };
}

/**
 * The route with its parameters filled in (`/api/v1/reviews/<id>`). A missing or empty one keeps
 * its name: no request reaches a route with an empty segment (`/api/v1/reviews/` is the list).
 */
function pathOf(route: string, params: Record<string, string>): string {
  return route.replace(/\[([^\]]+)\]/g, (_, name: string) => encodeURIComponent(params[name] || name));
}

/**
 * Calls a route handler the way Next does: a web Request plus a params promise. Without a
 * `path` (or `method`) the request goes to the handler's own route (and method), as in Next:
 * apiRoute checks the answer against its definition (lib/http/documented-status.ts).
 */
export async function call(
  handler: Handler,
  options: {
    method?: string;
    path?: string;
    token?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    params?: Record<string, string>;
  } = {},
): Promise<{ status: number; body: any }> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const served = routeOf(handler);
  const requestPath = options.path ?? (served ? pathOf(served.route, options.params ?? {}) : "/");
  const request = new Request(`http://localhost${requestPath}`, {
    method: options.method ?? served?.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
