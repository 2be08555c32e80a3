/**
 * The console's own server (lib/server/console-server.ts) answers a method no path serves (TRACE,
 * SEARCH, PROPFIND, ...) with 405 and the security headers of every answer, before Next, which
 * cannot take TRACE at all (a 500 without headers). Node itself answers 400 to a method it does not know.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleRequestListener } from "@/lib/server/console-server";

let server: Server;
let port: number;
let nextCalls = 0;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  server.on(
    "request",
    consoleRequestListener(
      (_req, res) => {
        nextCalls += 1;
        res.writeHead(204).end();
      },
      { hostname: "127.0.0.1", port, fastPath: false },
    ),
  );
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function send(method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a method no path serves", () => {
  it.each([
    ["TRACE", "/"],
    ["TRACE", "/api/v1/reviews"],
    ["SEARCH", "/login"],
    ["PROPFIND", "/api/v1/reviews"],
  ])("%s %s is 405 with the security headers, never reaching Next", async (method, path) => {
    const before = nextCalls;
    const answer = await send(method, path, { cookie: "x=1" });
    expect(answer.status).toBe(405);
    expect(answer.headers).toMatchObject({
      allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      "content-security-policy": expect.stringContaining("default-src 'none'"),
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
    });
    expect(answer.headers["strict-transport-security"]).toBeUndefined();
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "method-not-allowed", message: `${method} is not served here` },
    });
    expect(nextCalls).toBe(before);
  });

  it("behind an https proxy the answer carries HSTS too; served methods go on to Next", async () => {
    const answer = await send("TRACE", "/", { "x-forwarded-proto": "https" });
    expect(answer.status).toBe(405);
    expect(answer.headers["strict-transport-security"]).toBe("max-age=31536000");
    for (const method of ["GET", "POST", "OPTIONS", "DELETE"]) {
      expect((await send(method, "/api/v1/reviews")).status, method).toBe(204);
    }
  });
});
