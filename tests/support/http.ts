import { createApiToken } from "@/lib/auth/tokens";
import type { Role } from "@/lib/auth/roles";

// Route handlers type their own params; the tests pass whatever the route under test expects.
type Handler = (request: Request, context: { params: Promise<any> }) => Promise<Response>;

export async function tokenFor(role: Role, name = `${role}-${Math.random().toString(36).slice(2, 8)}`) {
  return (await createApiToken(name, role)).token;
}

/** Calls a route handler the way Next does: a web Request plus a params promise. */
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
  const request = new Request(`http://localhost${options.path ?? "/"}`, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
