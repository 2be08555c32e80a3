import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import next from "next";
import { consoleIsHttps } from "@/lib/config/https";
import { API_POLICY, baseSecurityHeaders } from "@/lib/http/security-headers";
import { dropOutputWhenItsReaderIsGone } from "@/lib/stdio-guard";
import { type FastPathAddress, fastPathEnabled, fastRoute, serveFastPath } from "./intake-fast-path";
import { PEER_ADDRESS_HEADER, PEER_HEADER_FLAG } from "@/lib/net/peer-address";

// The console's own HTTP server: Next's request handler behind a plain node:http server, so the
// server knows each request's socket address and can hand it to the application. Next gives route
// handlers no socket address (it only fills X-Forwarded-For from the socket when the client sent
// none, so a direct client chooses its own); the sign-in limit per client address needs one that
// no client can choose (docs/decisions/0006-authentication.md). Bearer intake requests are
// answered here without Next, by the same handlers (./intake-fast-path.ts, ADR 0025).

export interface ConsoleServerOptions {
  dir: string;
  hostname: string;
  port: number;
}

/** Starts the production console (the current `next build`) and resolves once it listens. */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<Server> {
  // Before Next installs its uncaughtException handler, which logs to stderr: with stderr's reader
  // gone, that handler and the EPIPE it causes would feed each other without end.
  dropOutputWhenItsReaderIsGone();
  process.env[PEER_HEADER_FLAG] = "1";
  const app = next({ dev: false, dir: options.dir, hostname: options.hostname, port: options.port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer(
    consoleRequestListener((req, res) => void handle(req, res), {
      hostname: options.hostname,
      port: options.port,
      fastPath: fastPathEnabled(),
    }),
  );
  // A client (a browser, a load balancer, Playwright's request context) may reuse an idle
  // connection just as Node's default 5 s keep-alive closes it, and its request then dies with
  // ECONNRESET. Idle connections are kept longer than such clients keep theirs; shutdown closes
  // them at once anyway (scripts/serve.ts: closeIdleConnections).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => resolve());
  });
  return server;
}

/** The methods the console serves (pages, route handlers, Better Auth, CORS preflights). */
const SERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * 405 for any other method, with the security headers every answer carries. Next cannot answer
 * TRACE, TRACK or CONNECT at all (a fetch Request refuses them, so proxy.ts never runs: a 500
 * without headers), and no path serves any other method.
 */
function methodNotAllowed(req: IncomingMessage, res: ServerResponse): void {
  // Over https as Next would tell: the proxy's X-Forwarded-Proto (the console serves plain http).
  const proto = req.headers["x-forwarded-proto"];
  const https = consoleIsHttps(new Headers(typeof proto === "string" ? { "x-forwarded-proto": proto } : {}));
  const body = JSON.stringify({
    error: { code: "method-not-allowed", message: `${req.method} is not served here` },
  });
  res.writeHead(405, {
    ...baseSecurityHeaders({ https }),
    "content-security-policy": API_POLICY,
    allow: [...SERVED_METHODS].join(", "),
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  // The request's body, if any, is not read: the connection closes after the answer.
  res.shouldKeepAlive = false;
  res.end(body);
}

/**
 * What the server does with each request: an unserved method gets 405 here, the socket's address goes on as a header, then bearer
 * intake takes the fast path (when `fastPath`), everything else goes to `next` (Next's handler).
 */
export function consoleRequestListener(
  nextHandler: (req: IncomingMessage, res: ServerResponse) => void,
  options: FastPathAddress & { fastPath: boolean },
): RequestListener {
  return (req, res) => {
    if (!SERVED_METHODS.has(req.method ?? "")) return methodNotAllowed(req, res);
    // Node lower-cases header names; a client's own copy (in any case, any number) is dropped.
    req.headers[PEER_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
    const route = options.fastPath ? fastRoute(req) : undefined;
    if (!route) return nextHandler(req, res);
    serveFastPath(req, res, route, options).catch((err: unknown) => {
      // serveFastPath answers every failure of the handler; this is one of the answer itself.
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  };
}
