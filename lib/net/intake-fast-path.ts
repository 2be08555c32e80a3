import type { IncomingMessage, ServerResponse } from "node:http";
import { consoleIsHttps } from "@/lib/http/https";
import { API_POLICY, baseSecurityHeaders } from "@/lib/http/security-headers";
import { log } from "@/lib/log";
import { processMetrics } from "@/lib/metrics/process";
import { reportReview, reportReviewBatch } from "@/lib/reviews/intake-routes";

// Intake without Next's request pipeline (docs/decisions/0025-intake-fast-path.md). A bearer
// POST to /api/v1/reviews or /api/v1/reviews/batch is answered here, by the console's own server,
// with the very handler Next's route exports (lib/reviews/intake-routes.ts: authentication, the
// role check, the body checks, validation, intake, refusal logging, metrics, the 503 of a database
// that does not answer), plus the security headers proxy.ts gives every API answer. Next's
// routing, its proxy run and its request and response adapters cost about 1.9 ms of CPU per
// request before the handler starts, more than the handler and the database together.
// Everything else (cookie requests, other paths and methods, a switched-off fast path) goes to Next.

type Handler = (request: Request) => Promise<Response>;

/** A request the fast path takes: its route (the path, as the HTTP metrics name it) and handler. */
export interface FastRoute {
  path: string;
  handler: Handler;
}

/** The paths answered here, exactly as Next matches them (no trailing slash, no other spelling). */
const FAST_ROUTES = new Map<string, Handler>([
  ["/api/v1/reviews", reportReview],
  ["/api/v1/reviews/batch", reportReviewBatch],
]);

/** The same test authenticate() applies: a Bearer credential decides who calls, not a cookie. */
const BEARER = /^\s*Bearer(\s|$)/i;

/** INTAKE_FAST_PATH=off sends every request through Next (for comparison, or if ever in doubt). */
export function fastPathEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.INTAKE_FAST_PATH ?? "on").toLowerCase() !== "off";
}

/** The route when the fast path takes `req`, else undefined (Next answers it). */
export function fastRoute(req: IncomingMessage): FastRoute | undefined {
  if (req.method !== "POST" || !req.url) return undefined;
  const query = req.url.indexOf("?");
  const path = query < 0 ? req.url : req.url.slice(0, query);
  const handler = FAST_ROUTES.get(path);
  if (!handler) return undefined;
  // Cookie sessions (people in the console) stay with Next: Better Auth reads them there, and
  // the cross-site rule applies to them. A bearer request carries no ambient credential.
  const authorization = req.headers.authorization;
  return authorization && BEARER.test(authorization) ? { path, handler } : undefined;
}

export interface FastPathAddress {
  /** The name and port the server listens on: Next builds each request's URL from them. */
  hostname: string;
  port: number;
}

/**
 * The web Request Next's route handler would get: the URL built from the listening address as
 * Next builds it, the headers with the `x-forwarded-*` Next adds when a client sent none, and the
 * body streamed (readJsonBody counts it, so a body past the limit is never held whole).
 */
export function webRequest(req: IncomingMessage, address: FastPathAddress): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const forwardedProto = req.headers["x-forwarded-proto"];
  if (!headers.has("x-forwarded-host")) headers.set("x-forwarded-host", req.headers.host ?? address.hostname);
  if (!headers.has("x-forwarded-port")) headers.set("x-forwarded-port", String(address.port));
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", "http"); // the socket is plain TCP
  if (!headers.has("x-forwarded-for") && req.socket.remoteAddress)
    headers.set("x-forwarded-for", req.socket.remoteAddress);
  const protocol = typeof forwardedProto === "string" && forwardedProto.includes("https") ? "https" : "http";
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
  return new Request(`${protocol}://${host}:${address.port}${req.url}`, {
    method: "POST",
    headers,
    body: bodyStream(req),
    duplex: "half",
  } as RequestInit);
}

/**
 * The request body as a web stream that reads only as fast as it is consumed, and not at all
 * until it is (a refusal before the body, such as a declared length past the limit, leaves it to
 * Node, which discards it once the answer is out). Cancelled (a body past the limit while it
 * streams), it passes nothing more on and lets the rest drain, so the connection stays usable.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let listening = false;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!listening) {
        listening = true;
        req.on("data", (chunk: Buffer) => {
          if (cancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        });
        req.once("end", () => {
          if (!cancelled) controller.close();
        });
        req.once("error", (error) => {
          if (!cancelled) controller.error(error);
        });
      }
      req.resume();
    },
    cancel() {
      cancelled = true;
      req.resume();
    },
  });
}

/**
 * Answers `req` with `handler` and the headers proxy.ts sets on every API answer. The handler
 * answers every refusal and failure itself (apiRoute); what it throws (outside production, an
 * answer the OpenAPI document lacks) is a bare 500, as Next answers a handler that throws.
 */
export async function serveFastPath(
  req: IncomingMessage,
  res: ServerResponse,
  route: FastRoute,
  address: FastPathAddress,
): Promise<void> {
  const request = webRequest(req, address);
  let response: Response;
  try {
    response = await route.handler(request);
  } catch (err) {
    log.error({ err, method: req.method, url: req.url }, "request failed");
    response = new Response(null, { status: 500 });
  }
  const body = Buffer.from(await response.arrayBuffer());
  const https = consoleIsHttps(request.headers, request.url);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  headers["content-security-policy"] = API_POLICY;
  Object.assign(headers, baseSecurityHeaders({ https }));
  processMetrics().fastPath.inc({ route: route.path });
  if (!req.complete) {
    // Answered before the whole body came. What is left is drained, so the connection stays
    // usable; but after a 413 the connection is not reused: the client may stop sending the
    // oversized body once it has the answer, and the rest would be taken for its next request.
    if (response.status === 413) res.shouldKeepAlive = false;
    req.resume();
  }
  res.writeHead(response.status, headers);
  res.end(body);
}
