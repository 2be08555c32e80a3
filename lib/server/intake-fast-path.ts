import type { IncomingMessage, ServerResponse } from "node:http";
import { config } from "@/lib/config";
import { consoleIsHttps } from "@/lib/config/https";
import { type Answer, type ApiHandler, isJsonAnswer } from "@/lib/http/route";
import { API_POLICY, baseSecurityHeaders } from "@/lib/http/security-headers";
import { log } from "@/lib/log";
import { processMetrics } from "@/lib/metrics/process";
import { reportReview, reportReviewBatch } from "@/lib/http/intake-routes";

// Intake without Next's request pipeline (docs/decisions/0025-intake-fast-path.md). A bearer
// POST to /api/v1/reviews or /api/v1/reviews/batch is answered here, by the console's own server,
// with the very handler Next's route exports (lib/http/intake-routes.ts: authentication, the
// role check, the body checks, validation, intake, refusal logging, metrics, the 503 of a database
// that does not answer), plus the security headers proxy.ts gives every API answer. Next's
// routing, its proxy run and its request and response adapters cost about 1.9 ms of CPU per
// request before the handler starts, more than the handler and the database together.
// Everything else (cookie requests, other paths and methods, a switched-off fast path) goes to Next.

type Handler = ApiHandler<Record<string, never>>;

/** A request the fast path takes: its route (the path, as the HTTP metrics name it) and handler. */
export interface FastRoute {
  path: string;
  handler: Handler;
}

/** The paths answered here, exactly as Next matches them (no trailing slash, no other spelling). */
const FAST_ROUTES = new Map<string, Handler>(
  [reportReview, reportReviewBatch].map((handler) => [handler.definitions[0]!.route, handler]),
);

/** The same test authenticate() applies: a Bearer credential decides who calls, not a cookie. */
const BEARER = /^\s*Bearer(\s|$)/i;

/** INTAKE_FAST_PATH=off sends every request through Next (for comparison, or if ever in doubt). */
export function fastPathEnabled(): boolean {
  return config().INTAKE_FAST_PATH;
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
 * What apiRoute and the intake handlers read of a request, and nothing else: the method, the URL
 * Next would build, the headers with the `x-forwarded-*` Next adds when a client sent none, and a
 * reader of the body (readJsonBody counts it, so a body past the limit is never held whole). A
 * web Request with a ReadableStream body cost more than the handler's own work, so this is a plain
 * object (docs/decisions/0035-intake-cost.md); outside production, reading anything else of it
 * throws, so a handler that starts to need more fails its tests instead of misreading a request.
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
  const request = {
    method: "POST",
    url: `${protocol}://${host}:${address.port}${req.url}`,
    headers,
    body: bodyOf(req),
  };
  return (process.env.NODE_ENV === "production" ? request : strict(request)) as unknown as Request;
}

/** `request`, refusing to be read beyond what it has (anything but its own members and then()). */
function strict<T extends object>(request: T): T {
  return new Proxy(request, {
    get(target, property, receiver) {
      // `then` is looked up by await on any value; `toJSON` and inspection by loggers.
      if (property in target || property === "then" || typeof property === "symbol" || property === "toJSON")
        return Reflect.get(target, property, receiver) as unknown;
      throw new Error(`the intake fast path's request has no ${String(property)} (lib/server/intake-fast-path.ts)`);
    },
  });
}

/** The part of a ReadableStream readJsonBody uses: one reader, read() and cancel(). */
interface BodyReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(): Promise<void>;
}

/**
 * The request body as readJsonBody reads a web stream's: chunk by chunk, only as fast as it is
 * read, and not at all until it is (a refusal before the body, such as a declared length past the
 * limit, leaves it to Node, which discards it once the answer is out). Cancelled (a body past the
 * limit while it streams), it passes nothing more on and lets the rest drain, so the connection
 * stays usable.
 */
function bodyOf(req: IncomingMessage): { getReader(): BodyReader } {
  return {
    getReader() {
      const chunks: Buffer[] = [];
      let ended = false;
      let failed: { error: unknown } | undefined;
      let cancelled = false;
      let wake: (() => void) | undefined;
      req.on("data", (chunk: Buffer) => {
        if (cancelled) return;
        chunks.push(chunk);
        req.pause();
        wake?.();
      });
      req.once("end", () => {
        ended = true;
        wake?.();
      });
      req.once("error", (error) => {
        failed = { error };
        wake?.();
      });
      return {
        async read() {
          for (;;) {
            const chunk = chunks.shift();
            if (chunk) return { done: false, value: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) };
            if (failed) throw failed.error;
            if (ended) return { done: true };
            req.resume();
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        },
        async cancel() {
          cancelled = true;
          chunks.length = 0;
          req.resume();
        },
      };
    },
  };
}

/** The answer's status, headers and body bytes: a JsonAnswer serialised as Response.json would. */
async function written(answer: Answer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  if (isJsonAnswer(answer)) {
    const body = Buffer.from(JSON.stringify(answer.body));
    return { status: answer.status, headers: { "content-type": "application/json" }, body };
  }
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  return { status: answer.status, headers, body: Buffer.from(await answer.arrayBuffer()) };
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
  let answer: Answer;
  try {
    answer = await route.handler.answer(request);
  } catch (err) {
    log.error({ err, method: req.method, url: req.url }, "request failed");
    answer = new Response(null, { status: 500 });
  }
  const response = await written(answer);
  const https = consoleIsHttps(request.headers, request.url);
  const headers = response.headers;
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
  res.end(response.body);
}
