import type { Page } from "@playwright/test";
import { expect, test, watchConsole } from "./fixtures";

// The API reference page (docs/decisions/0015-openapi.md): the console renders /api/openapi.json
// on the server, so it requests nothing from any host but the console's, under the page's
// Content-Security-Policy, without a console error.

/** Everything the page asked for, and whatever it logged as an error or a CSP violation. */
async function watch(page: Page, origin: string) {
  const foreign: string[] = [];
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
  return { foreign, errors: await watchConsole(page), requested };
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

  // The document's title and an operation, POST /api/v1/reviews, with who may call it, its
  // body and its answers: rendered by the server, so they are there without any script.
  await expect(page.getByRole("heading", { level: 1, name: "Review Console API" })).toBeVisible();
  const report = page.getByRole("region", { name: "Report a record", exact: true });
  await expect(report).toHaveAttribute("id", "op-reportReview");
  await expect(report.getByRole("paragraph").first()).toHaveText("POST /api/v1/reviews");
  await expect(report).toContainText("Roles: consumer (permission reviews.report)");
  await expect(report.getByRole("link", { name: "ReportRequest" })).toHaveAttribute("href", "#schema-ReportRequest");
  await expect(report.getByRole("listitem").filter({ hasText: /^201 A new record\./ })).toBeVisible();
  // The contents lead to it, and the schema it names has its section with its fields.
  const contents = page.getByRole("navigation", { name: "API contents" });
  await contents.getByRole("link", { name: "POST /api/v1/reviews", exact: true }).click();
  await expect(page).toHaveURL(/#op-reportReview$/);
  await report.getByRole("link", { name: "ReportRequest" }).click();
  const schema = page.getByRole("region", { name: "ReportRequest", exact: true });
  await expect(schema).toBeInViewport();
  await expect(schema.getByRole("listitem").filter({ hasText: /^requiredCheck string required/ })).toBeVisible();
  await expect(page.getByText("/api/v1/reviews/{id}/actions").first()).toBeAttached();
  // Laid out, not squeezed.
  const intro = await page.getByText("The manual route for task queues").first().boundingBox();
  expect(intro?.width).toBeGreaterThan(300);
  await page.waitForLoadState("networkidle");

  // Rendered on the server: the page links to the document and needs no request for it.
  await expect(page.getByRole("link", { name: "/api/openapi.json", exact: true })).toHaveAttribute(
    "href",
    "/api/openapi.json",
  );
  expect(seen.foreign, "requests to another host").toEqual([]);
  const offHost = seen.requested.filter((url) => /^https?:/.test(url) && new URL(url).origin !== server.baseURL);
  expect(offHost, "requests to another host").toEqual([]);
  expect(seen.errors, "console errors and CSP violations").toEqual([]);

  // The page's policy admits no inline style without the request's nonce.
  const policy = (await page.request.get("/api-reference")).headers()["content-security-policy"] ?? "";
  expect(policy).toMatch(/style-src 'self' 'nonce-[^']+'(;|$)/);
  const styles = await page.evaluate(() => [...document.querySelectorAll("style")].map((style) => style.nonce));
  expect(styles.every((nonce) => nonce !== "")).toBe(true);
});
