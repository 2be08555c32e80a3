import { readdirSync } from "node:fs";
import path from "node:path";
import { createApiToken } from "@/lib/auth";
import type { Role } from "@/lib/access/client";

// Route handlers type their own params; the tests pass whatever the route under test expects.
type Handler = (request: Request, context: { params: Promise<any> }) => Promise<Response>;

export async function tokenFor(role: Role, name = `${role}-${Math.random().toString(36).slice(2, 8)}`) {
  return (await createApiToken(name, role)).token;
}

const APP_DIR = path.resolve(import.meta.dirname, "../../app");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return /^route\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

let handlerRoutes: Promise<Map<unknown, { method: string; route: string }>> | undefined;

/**
 * The method and route (`/api/v1/reviews/[id]`) a handler of app/api serves, found by loading
 * every route module once (the same module instances the test imported). Better Auth's
 * catch-all is left out: one handler serves all its methods.
 */
function routeOf(handler: Handler): Promise<{ method: string; route: string } | undefined> {
  handlerRoutes ??= (async () => {
    const routes = new Map<unknown, { method: string; route: string }>();
    for (const file of routeFiles(path.join(APP_DIR, "api"))) {
      const route = `/${path.relative(APP_DIR, path.dirname(file)).split(path.sep).join("/")}`;
      if (route.includes("[...")) continue;
      const exported = (await import(file)) as Record<string, unknown>;
      for (const method of METHODS)
        if (typeof exported[method] === "function") routes.set(exported[method], { method, route });
    }
    return routes;
  })();
  return handlerRoutes.then((routes) => routes.get(handler));
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
 * apiRoute names the route it answered for, and checks the answer against the OpenAPI document
 * (lib/http/documented-status.ts).
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
  const served = await routeOf(handler);
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
