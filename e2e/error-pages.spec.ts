import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The error pages: an unknown record, operation or route answers a real 404,
// a refused page a real 403, and each keeps the app's header (the sections, who is signed in)
// so the person can go on from there. Statuses are read from the navigation's response: a page
// that streamed before deciding would answer 200 with the same text.

async function expectHeader(page: Page, email: string) {
  await expect(page.getByRole("banner")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Queue" })).toBeVisible();
  await expect(page.getByRole("banner")).toContainText(email);
}

test("unknown records, operations and routes answer 404 inside the app's header", async ({ page, loginAs }) => {
  const { email } = await loginAs("owner");

  const record = await page.goto(`/reviews/${randomUUID()}`);
  expect(record?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "No such review record" })).toBeVisible();
  await expectHeader(page, email);

  const malformed = await page.goto("/reviews/not-a-record-id");
  expect(malformed?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "No such review record" })).toBeVisible();

  const operation = await page.goto(`/operations/${randomUUID()}`);
  expect(operation?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "No such operation" })).toBeVisible();
  await expectHeader(page, email);

  const route = await page.goto("/no-such-page/anywhere");
  expect(route?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expectHeader(page, email);

  // The pages that exist still answer 200 (no loading boundary was needed for them to render).
  expect((await page.goto("/reviews"))?.status()).toBe(200);
  expect((await page.goto("/operations"))?.status()).toBe(200);
});

test("a page the role may not open answers 403 inside the app's header", async ({ page, loginAs }) => {
  const { email } = await loginAs("owner");
  const response = await page.goto("/admin");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { level: 1, name: "Not allowed" })).toBeVisible();
  await expect(page.getByText("The attempt has been recorded in the decision log.")).toBeVisible();
  await expectHeader(page, email);
  // The header's sections are the role's own: no Admin link for an owner.
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
});
