/**
 * The sign-in limit per client address without a proxy in front: the console's own
 * server (scripts/serve.ts) knows each socket's address, so one client's failed sign-ins use up
 * that client's budget only, and no header a client sends moves it to another. The clients here
 * connect from different loopback addresses (127.0.0.2, 127.0.0.3), as different machines would.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { SIGN_IN_RATE_LIMIT } from "@/lib/auth";
import { PEER_ADDRESS_HEADER } from "../lib/net/peer-address";
import { expect, startServer, stopServer, test } from "./fixtures";

/** POST /api/auth/sign-in/email from `localAddress`, with extra headers; resolves to the status. */
function signIn(
  baseURL: string,
  localAddress: string,
  body: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<number> {
  const url = new URL("/api/auth/sign-in/email", baseURL);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", origin: baseURL, ...headers },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    request.on("error", reject);
    request.end(data);
  });
}

test("each client address has its own sign-in budget, and no header moves a client to another", async ({
  server,
  createPerson,
}) => {
  // Without TRUSTED_PROXIES: before, every client shared one budget here.
  const own = await startServer(server.databaseUrl, randomBytes(32).toString("base64url"), {
    TRUSTED_PROXIES: undefined,
  });
  try {
    const person = await createPerson("support");
    const wrong = { email: `nobody-${randomBytes(4).toString("hex")}@e2e.local`, password: "wrong password" };
    for (let i = 0; i < SIGN_IN_RATE_LIMIT.max; i++) {
      expect(await signIn(own.baseURL, "127.0.0.2", wrong)).toBe(401);
    }
    expect(await signIn(own.baseURL, "127.0.0.2", wrong), "the sixth attempt in a minute").toBe(429);
    // A header naming another address changes nothing: the server sets its own from the socket.
    const dodges = { [PEER_ADDRESS_HEADER]: "203.0.113.9", "x-forwarded-for": "203.0.113.10" };
    expect(await signIn(own.baseURL, "127.0.0.2", person, dodges)).toBe(429);
    // Another client is not locked out by the first one's failures.
    expect(await signIn(own.baseURL, "127.0.0.3", person)).toBe(200);
  } finally {
    await stopServer(own.child);
  }
});
