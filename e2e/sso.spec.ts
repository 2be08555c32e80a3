/**
 * Single sign-on end to end (docs/decisions/0036-single-sign-on.md): a real OpenID Connect
 * provider (the oidc-provider package, its own login and consent pages) on a free port of
 * 127.0.0.1, and two consoles configured for it: one with password sign-in, one with
 * PASSWORD_SIGN_IN=off. The browser may reach 127.0.0.1 only (the provider's pages import a web
 * font; that request is stopped before it leaves).
 */
import { randomBytes } from "node:crypto";
import { createServer, type RequestListener, type Server } from "node:http";
import type { Browser, Page } from "@playwright/test";
import pg from "pg";
import { freePort } from "../lib/net/local-server";
import { expect, type RunningServer, startServer, stopServer, test } from "./fixtures";

/** oidc-provider ships no types; this is the little of it the test uses. */
type OidcProvider = new (issuer: string, configuration: Record<string, unknown>) => { callback(): RequestListener };
const OIDC_PROVIDER_MODULE = "oidc-provider";

const PROVIDER_NAME = "Test IdP";
const CLIENT_ID = "review-console-e2e";
const CLIENT_SECRET = randomBytes(24).toString("base64url");
const DOMAIN = `payments-${randomBytes(3).toString("hex")}`;

/** The provider's people: login name → claims. A test changes `groups` between sign-ins. */
const people = new Map<string, { email: string; groups: string[] }>();

let issuer = "";
let idp: Server | undefined;
let consoleSso: RunningServer | undefined;
let consoleSsoOnly: RunningServer | undefined;
const outside: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ server }) => {
  const pool = new pg.Client({ connectionString: server.databaseUrl });
  await pool.connect();
  await pool.query("INSERT INTO domains (name, created_by) VALUES ($1, 'system:e2e')", [DOMAIN]);
  await pool.end();

  const providerPort = await freePort();
  issuer = `http://127.0.0.1:${providerPort}`;
  const settings = {
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    OIDC_PROVIDER_NAME: PROVIDER_NAME,
    OIDC_GROUP_GRANTS: `rc-payments-owners=owner@${DOMAIN},rc-auditors=auditor`,
  };
  // The superuser's URL: a runtime role of this spec's own could not be dropped before the
  // worker's database is (its grants live there).
  const role = { url: server.databaseUrl };
  const secret = randomBytes(32).toString("base64url");
  // The consoles first: the provider must know their callback URLs. Better Auth reads the
  // discovery document at the first sign-in request, when the provider is up.
  [consoleSso, consoleSsoOnly] = await Promise.all([
    // BETTER_AUTH_URL is required with OIDC_ISSUER: the callback URL the provider knows.
    startServer(role.url, secret, (baseURL) => ({ ...settings, BETTER_AUTH_URL: baseURL })),
    startServer(role.url, secret, (baseURL) => ({ ...settings, BETTER_AUTH_URL: baseURL, PASSWORD_SIGN_IN: "off" })),
  ]);

  const { default: Provider } = (await import(OIDC_PROVIDER_MODULE)) as { default: OidcProvider };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [consoleSso, consoleSsoOnly].map((c) => `${c!.baseURL}/api/auth/callback/oidc`),
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const person = people.get(sub);
      if (!person) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: person.email, email_verified: true, name: sub, groups: person.groups }),
      };
    },
  });
  idp = createServer(provider.callback());
  await new Promise<void>((resolve) => idp!.listen(providerPort, "127.0.0.1", resolve));
});

test.afterAll(async () => {
  await Promise.all([consoleSso, consoleSsoOnly].map((c) => (c ? stopServer(c.child) : undefined)));
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve(undefined)));
  expect(outside.filter((u) => !u.startsWith("https://fonts.googleapis.com/"))).toEqual([]);
});

/** A browser context that reaches 127.0.0.1 only. */
async function localContext(browser: Browser) {
  const context = await browser.newContext();
  await context.route(
    (url) => url.hostname !== "127.0.0.1",
    async (route) => {
      outside.push(route.request().url());
      await route.abort();
    },
  );
  return context;
}

/** Clicks "Sign in with Test IdP" and logs in at the provider's own pages as `login`. */
async function signInAtProvider(page: Page, baseURL: string, login: string): Promise<void> {
  await page.goto(`${baseURL}/login`);
  await page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}` }).click();
  await page.waitForURL((url) => url.origin === issuer);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password at the test provider");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.origin === baseURL);
}

async function query<T>(databaseUrl: string, sql: string, params: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

function grantsOf(databaseUrl: string, email: string) {
  return query<{ role: string; domain: string | null; source: string }>(
    databaseUrl,
    `SELECT g.role::text AS role, g.domain, g.source FROM role_grants g JOIN users u ON u.id = g.user_id
      WHERE u.email = $1 ORDER BY 1, 2`,
    [email],
  );
}

test("the first sign-in creates the person with the grants of their groups; the next one replaces them", async ({
  browser,
  server,
}) => {
  const login = `ana-${randomBytes(4).toString("hex")}`;
  const email = `${login}@idp.e2e.local`;
  people.set(login, { email, groups: ["rc-payments-owners", "not-mapped"] });

  const context = await localContext(browser);
  const page = await context.newPage();
  await signInAtProvider(page, consoleSso!.baseURL, login);
  // An owner lands on the overview after signing in, by password or through the provider.
  await expect(page).toHaveURL(`${consoleSso!.baseURL}/overview`);
  await expect(page.locator(".rc-shell-role")).toHaveText(`owner · ${DOMAIN}`);
  expect(await grantsOf(server.databaseUrl, email)).toEqual([{ role: "owner", domain: DOMAIN, source: "oidc" }]);
  const [user] = await query<{ role: string }>(
    server.databaseUrl,
    "SELECT role::text AS role FROM users WHERE email = $1",
    [email],
  );
  expect(user?.role).toBe("owner");
  await context.close();

  // The provider now says auditor: the oidc rows become that set; a manual grant stays.
  people.set(login, { email, groups: ["rc-auditors"] });
  await query(
    server.databaseUrl,
    `INSERT INTO role_grants (user_id, role, domain, source, created_by)
       SELECT id, 'support', $2, 'manual', 'system:e2e' FROM users WHERE email = $1`,
    [email, DOMAIN],
  );
  const again = await localContext(browser);
  const page2 = await again.newPage();
  await signInAtProvider(page2, consoleSso!.baseURL, login);
  await expect(page2.locator(".rc-shell-role")).toContainText("auditor");
  expect(await grantsOf(server.databaseUrl, email)).toEqual([
    { role: "auditor", domain: null, source: "oidc" },
    { role: "support", domain: DOMAIN, source: "manual" },
  ]);
  const log = await query<{ details: { before: unknown[]; after: unknown[]; source: string } }>(
    server.databaseUrl,
    "SELECT details FROM decision_log WHERE action = 'user.grants-synced' AND details->>'email' = $1 ORDER BY seq",
    [email],
  );
  expect(log.map((l) => l.details.after)).toEqual([
    [{ role: "owner", domain: DOMAIN }],
    [{ role: "auditor", domain: null }],
  ]);
  expect(log[1]?.details.before).toEqual([{ role: "owner", domain: DOMAIN }]);
  expect(log[1]?.details.source).toBe("oidc");
  await again.close();
});

test("a person whose groups map to nothing is refused, and no user is created", async ({ browser, server }) => {
  const login = `bo-${randomBytes(4).toString("hex")}`;
  const email = `${login}@idp.e2e.local`;
  people.set(login, { email, groups: ["rc-nothing-here"] });
  const context = await localContext(browser);
  const page = await context.newPage();
  await signInAtProvider(page, consoleSso!.baseURL, login);
  await expect(page).toHaveURL(/\/login\?/);
  await expect(
    page.getByText(`Your groups at ${PROVIDER_NAME} give you no role in the Review Console. Ask an admin.`),
  ).toBeVisible();
  expect(await query(server.databaseUrl, "SELECT 1 FROM users WHERE email = $1", [email])).toEqual([]);
  await context.close();
});

test("a disabled person cannot sign in through single sign-on", async ({ browser, server }) => {
  const login = `cy-${randomBytes(4).toString("hex")}`;
  const email = `${login}@idp.e2e.local`;
  people.set(login, { email, groups: ["rc-auditors"] });
  const context = await localContext(browser);
  const page = await context.newPage();
  await signInAtProvider(page, consoleSso!.baseURL, login);
  await expect(page.locator(".rc-shell-role")).toHaveText("auditor");
  await context.close();

  await query(server.databaseUrl, "UPDATE users SET banned = true WHERE email = $1", [email]);
  const again = await localContext(browser);
  const page2 = await again.newPage();
  await signInAtProvider(page2, consoleSso!.baseURL, login);
  await expect(page2).toHaveURL(/\/login\?/);
  await expect(page2.getByText("This account is disabled. Ask an admin.")).toBeVisible();
  await again.close();
});

test("with PASSWORD_SIGN_IN=off the login page offers only single sign-on and the password endpoint refuses", async ({
  browser,
  createPerson,
}) => {
  const person = await createPerson("owner");
  const context = await localContext(browser);
  const page = await context.newPage();
  await page.goto(`${consoleSsoOnly!.baseURL}/login`);
  await expect(page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}` })).toBeVisible();
  await expect(page.getByLabel("Password")).toHaveCount(0);
  const response = await page.request.post(`${consoleSsoOnly!.baseURL}/api/auth/sign-in/email`, {
    data: person,
    headers: { origin: consoleSsoOnly!.baseURL },
  });
  expect(response.status()).toBeGreaterThanOrEqual(400);
  expect(response.status()).toBeLessThan(500);
  // The console with password sign-in still takes the same person's password.
  const ok = await page.request.post(`${consoleSso!.baseURL}/api/auth/sign-in/email`, {
    data: person,
    headers: { origin: consoleSso!.baseURL, "x-forwarded-for": "198.51.99.7" },
  });
  expect(ok.status()).toBe(200);
  await context.close();
});
