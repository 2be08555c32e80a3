import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The API reference page (docs/decisions/0015-openapi.md): Scalar renders /api/openapi.json in
// the console, offline (nothing from any host but the console's: no CDN fonts, no telemetry, no
// proxy), under the page's Content-Security-Policy, without a console error.

/** Everything the page asked for, and whatever it logged as an error or a CSP violation. */
async function watch(page: Page, origin: string) {
  const foreign: string[] = [];
  const errors: string[] = [];
  const requested: string[] = [];
  // Refused, not just noted: a machine without internet must not wait on a CDN either.
  await page.context().route(
    (url) => url.origin !== origin && (url.protocol === "http:" || url.protocol === "https:"),
    async (route) => {
      foreign.push(route.request().url());
      await route.abort("blockedbyclient");
    },
  );
  page.on("request", (request) => requested.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error" || /Content[- ]Security[- ]Policy/i.test(message.text())) {
      errors.push(message.text());
    }
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}`);
    });
  });
  return { foreign, errors, requested };
}

test("signed out, the page is a redirect to the login page; the document itself is public", async ({ request }) => {
  const redirect = await request.get("/api-reference", { maxRedirects: 0 });
  expect(redirect.status()).toBe(307);
  expect(redirect.headers().location).toBe("/login?next=%2Fapi-reference");
  const document = await request.get("/api/openapi.json");
  expect(document.status()).toBe(200);
  expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
});

test("the API reference renders the OpenAPI document offline, under the page's CSP", async ({
  page,
  loginAs,
  server,
}) => {
  const seen = await watch(page, server.baseURL);
  await loginAs("auditor");

  // Reached from the console's navigation.
  await page.goto("/audit");
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "API", exact: true }).click();
  await expect(page).toHaveURL(/\/api-reference$/);
  await expect(nav.getByRole("link", { name: "API", exact: true })).toHaveAttribute("aria-current", "page");

  // The document's title and an operation, POST /api/v1/reviews, with who may call it.
  await expect(page.getByRole("heading", { name: "Review Console API" }).first()).toBeVisible({ timeout: 30_000 });
  const report = page.locator('section[id$="/POST/api/v1/reviews"]');
  await expect(report.getByRole("heading", { name: "Report a record", exact: true })).toBeVisible();
  await expect(report).toContainText("POST");
  await expect(report).toContainText("/api/v1/reviews");
  await expect(report).toContainText("Roles: consumer (permission reviews.report)");
  await expect(page.getByText("/api/v1/reviews/{id}/actions").first()).toBeAttached();
  // Laid out, not squeezed: the console's own `main` rule must not reach Scalar's.
  const intro = await page.getByText("The manual route for task queues").first().boundingBox();
  expect(intro?.width).toBeGreaterThan(300);
  await page.waitForLoadState("networkidle");

  expect(seen.requested.some((url) => new URL(url).pathname === "/api/openapi.json")).toBe(true);
  expect(seen.foreign, "requests to another host").toEqual([]);
  const offHost = seen.requested.filter((url) => /^https?:/.test(url) && new URL(url).origin !== server.baseURL);
  expect(offHost, "requests to another host").toEqual([]);
  expect(seen.errors, "console errors and CSP violations").toEqual([]);

  // Scalar's own <style> elements run under the page's policy with its nonce; no 'unsafe-inline'.
  const policy = (await page.request.get("/api-reference")).headers()["content-security-policy"] ?? "";
  expect(policy).toMatch(/style-src 'self' 'nonce-[^']+'(;|$)/);
  const styles = await page.evaluate(() =>
    [...document.querySelectorAll("style")].map((style) => ({ nonce: style.nonce, length: style.textContent?.length })),
  );
  expect(styles.length).toBeGreaterThan(0);
  expect(styles.every((style) => style.nonce !== "")).toBe(true);
});
