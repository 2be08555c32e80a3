import { randomBytes, randomUUID } from "node:crypto";
import type { APIRequestContext, APIResponse, Page } from "@playwright/test";
import { APP_ROUTES } from "../lib/http/app-routes.generated";
import { API_POLICY } from "../lib/http/security-headers";
import { expect, type TestServer, test } from "./fixtures";

// The web edges: every answer of a started console (pages, API routes, exports,
// errors, 404s) carries the security headers, and every page, seen by every role, runs under
// its Content-Security-Policy without a single violation (a blocked script would also mean a
// page that never hydrates).

const ROLES = ["owner", "support", "auditor", "admin"] as const;

/** What every answer carries, whatever it is. */
function expectBaseHeaders(response: APIResponse, what: string): void {
  const headers = response.headers();
  expect(headers["x-frame-options"], what).toBe("DENY");
  expect(headers["x-content-type-options"], what).toBe("nosniff");
  expect(headers["referrer-policy"], what).toBe("same-origin");
  expect(headers["permissions-policy"], what).toContain("camera=()");
  // Plain http here: no HSTS (a browser would ignore it anyway).
  expect(headers["strict-transport-security"], what).toBeUndefined();
  expect(headers["content-security-policy"], what).toContain("frame-ancestors 'none'");
}

/** A page's policy: a fresh nonce for scripts, and no inline script without it. */
function pageNonce(response: APIResponse, what: string): string {
  const policy = response.headers()["content-security-policy"] ?? "";
  const script = /(?:^|;\s*)script-src ([^;]*)/.exec(policy)?.[1] ?? "";
  expect(script, what).not.toContain("'unsafe-inline'");
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(script)?.[1];
  expect(nonce, `${what}: ${policy}`).toBeTruthy();
  return nonce!;
}

/** A consumer token and one record and one operation to point the dynamic routes at. */
async function fixtures(server: TestServer, request: APIRequestContext) {
  const { createApiToken } = await import("../lib/auth/tokens");
  const tag = randomBytes(4).toString("hex");
  const consumer = (await createApiToken(`headers-consumer-${tag}`, "consumer", "system:e2e")).token;
  const owner = (await createApiToken(`headers-owner-${tag}`, "owner", "system:e2e")).token;
  const reported = await request.post(`${server.baseURL}/api/v1/reviews`, {
    headers: { authorization: `Bearer ${consumer}` },
    data: {
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: `correct payload.invoiceId of msg-${tag}`,
      attempts: 1,
      message: {
        id: `msg-${tag}`,
        kind: "invoice.reminder",
        effectKey: `invoice-${tag}:reminder`,
        sequenceKey: `invoice-${tag}`,
        sequence: 1,
        payload: { schema: "2021-03", invoiceId: 417 },
      },
    },
  });
  expect(reported.status(), await reported.text()).toBe(201);
  const recordId = ((await reported.json()) as { id: string }).id;
  const created = await request.post(`${server.baseURL}/api/v1/operations`, {
    headers: { authorization: `Bearer ${owner}` },
    data: { action: "note", reason: "headers spec", selection: { type: "ids", ids: [recordId] } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const operationId = ((await created.json()) as { id: string }).id;
  return { consumer, owner, recordId, operationId };
}

test.describe("every answer carries the security headers", () => {
  test("pages, API routes, exports, errors and 404s; the signed-out redirect still works", async ({
    request,
    server,
  }) => {
    const { owner, recordId, operationId } = await fixtures(server, request);
    const auth = { authorization: `Bearer ${owner}` };
    const fill = (route: string) =>
      route
        .replace("[id]", route.startsWith("/operations/") ? operationId : recordId)
        .replace("[operationId]", operationId)
        .replace("[replayId]", randomUUID())
        .replace("[kind]", "invoice.reminder")
        .replace("[...all]", "get-session");
    const nonces: string[] = [];
    const check = (response: APIResponse, what: string) => {
      expectBaseHeaders(response, what);
      const isApi = new URL(response.url()).pathname.startsWith("/api/");
      if (isApi) expect(response.headers()["content-security-policy"], what).toBe(API_POLICY);
      else nonces.push(pageNonce(response, what));
    };

    // Every route of app/: pages and route handlers, GET (a 405 for POST-only ones is an answer too).
    for (const route of APP_ROUTES) {
      const url = fill(route);
      const response = await request.get(`${server.baseURL}${url}`, { headers: auth, maxRedirects: 0 });
      expect(response.status(), `${url}: ${response.status()}`).toBeLessThan(500);
      check(response, `GET ${url} (${response.status()})`);
    }
    // The mutating routes, answered with their refusals (bad bodies: 400, 415).
    for (const url of [
      "/api/v1/reviews",
      "/api/v1/reviews/batch",
      `/api/v1/reviews/${recordId}/actions`,
      "/api/v1/operations",
      `/api/v1/operations/${operationId}/pause`,
      "/api/v1/replays/claim",
    ]) {
      check(await request.post(`${server.baseURL}${url}`, { headers: auth, data: { nonsense: true } }), `POST ${url}`);
      check(
        await request.post(`${server.baseURL}${url}`, {
          headers: { ...auth, "content-type": "text/plain" },
          data: "x",
        }),
        `POST ${url} as text`,
      );
    }
    // Exports, both formats.
    for (const format of ["csv", "ndjson"]) {
      const response = await request.get(`${server.baseURL}/api/v1/audit/export?format=${format}`, { headers: auth });
      expect(response.status()).toBe(200);
      check(response, `export ${format}`);
    }
    // Errors: unauthenticated, forbidden, bad input, unknown paths, an undecodable path.
    check(await request.get(`${server.baseURL}/api/v1/reviews`), "401 without a token");
    const consumerRead = await request.get(`${server.baseURL}/api/v1/audit?limit=nope`, { headers: auth });
    expect(consumerRead.status()).toBe(400);
    check(consumerRead, "400 on a bad query");
    check(await request.get(`${server.baseURL}/api/v1/nothing-here`), "404 of the API");
    const missing = await request.get(`${server.baseURL}/no-such-page`);
    expect(missing.status()).toBe(404);
    check(missing, "404 page");
    const badPath = await request.put(`${server.baseURL}/api/v1/operations/auto-replay/%ED%A0%80`, {
      headers: auth,
      data: { enabled: true, reason: "x" },
    });
    expect(badPath.status()).toBe(400);
    expect(await badPath.json()).toEqual({
      error: {
        code: "invalid-request",
        message: "kind: is not valid percent-encoded UTF-8",
        issues: [{ path: "kind", message: "is not valid percent-encoded UTF-8" }],
      },
    });
    check(badPath, "400 on an undecodable path");

    // The signed-out redirect of console pages is unchanged, and carries the headers too.
    for (const page of ["/reviews", "/audit?actor=x", `/operations/${operationId}`]) {
      const redirect = await request.get(`${server.baseURL}${page}`, { maxRedirects: 0 });
      expect(redirect.status(), page).toBe(307);
      expect(redirect.headers().location).toBe(`/login?next=${encodeURIComponent(page)}`);
      check(redirect, `signed-out ${page}`);
    }

    // Each page answer had a nonce of its own.
    expect(nonces.length).toBeGreaterThan(10);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  test("HSTS when the request came over https (X-Forwarded-Proto from the TLS proxy)", async ({ request, server }) => {
    for (const path of ["/login", "/api/health"]) {
      const response = await request.get(`${server.baseURL}${path}`, { headers: { "x-forwarded-proto": "https" } });
      expect(response.headers()["strict-transport-security"], path).toBe("max-age=31536000");
    }
    const page = await request.get(`${server.baseURL}/login`, { headers: { "x-forwarded-proto": "https" } });
    expect(page.headers()["content-security-policy"]).toContain("upgrade-insecure-requests");
  });
});

/** Collects CSP violations of the page's documents: the DOM event, and the console's reports. */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  const reported: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) reported.push(message.text());
  });
  await page.addInitScript(() => {
    const store: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = store;
    document.addEventListener("securitypolicyviolation", (event) => {
      store.push(`${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  return async () => {
    const events = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
    return [...reported.splice(0), ...events];
  };
}

for (const role of ROLES) {
  test(`every page as ${role}: no CSP violation, and the pages work`, async ({ page, loginAs, request, server }) => {
    const { recordId, operationId } = await fixtures(server, request);
    const violations = await watchCsp(page);
    await loginAs(role);
    const visits: [string, RegExp | null][] = [
      ["/", null],
      ["/login", /signed in as/i],
      ["/reviews", null],
      ["/reviews?view=groups", null],
      [`/reviews/${recordId}`, null],
      [`/reviews/${randomUUID()}`, null],
      ["/audit", null],
      ["/operations", null],
      ["/operations/new", null],
      [`/operations/${operationId}`, null],
      [`/operations/${randomUUID()}`, null],
      ["/no-such-page", null],
    ];
    for (const [path, text] of visits) {
      const response = await page.goto(path);
      expect(response, path).not.toBeNull();
      pageNonce(await toApiResponse(response!), path);
      await page.waitForLoadState("networkidle");
      await expect(page.getByRole("heading", { level: 1 }).first(), path).toBeVisible();
      if (text) await expect(page.getByText(text).first()).toBeVisible();
      expect(await violations(), `${role} on ${path}`).toEqual([]);
    }

    // The page's own scripts run (hydrated): client-side navigation and an editor that adds
    // its styles at run time (CodeMirror, with the nonce) work under the policy.
    await page.goto(`/reviews/${recordId}`);
    const actions = page.getByRole("region", { name: "Actions" });
    if (role === "owner") {
      await actions.getByRole("button", { name: "Correct and replay", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Correct and replay" });
      const editor = dialog.getByRole("textbox", { name: "Corrected payload (JSON)" });
      await editor.fill('{ "schema": "2021-03", "invoiceId": "417" }');
      await expect(dialog.getByText(/Valid JSON and valid against the schema/)).toBeVisible();
    } else if (role === "support") {
      await actions.getByRole("button", { name: "Add a note", exact: true }).click();
      await expect(page.getByRole("dialog", { name: "Add a note" })).toBeVisible();
    }
    expect(await violations(), `${role} using the record page`).toEqual([]);
  });
}

test("signed out: the login page and a sign-in run under the policy", async ({ page, createPerson }) => {
  const violations = await watchCsp(page);
  const person = await createPerson("auditor");
  await page.goto("/audit");
  await expect(page).toHaveURL(/\/login\?next=%2Faudit$/);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await page.waitForLoadState("networkidle");
  expect(await violations()).toEqual([]);
});

/** Playwright's page.goto answers a Response; the header checks read it the same way. */
async function toApiResponse(response: import("@playwright/test").Response): Promise<APIResponse> {
  const headers = await response.allHeaders();
  return { headers: () => headers, url: () => response.url() } as unknown as APIResponse;
}
