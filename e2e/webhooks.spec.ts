import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { expectNoSidewaysScroll, seriousViolations } from "./axe";
import { expect, test } from "./fixtures";

// Webhooks managed in the console (/admin/webhooks, docs/decisions/0048-webhooks-in-the-console.md)
// against a receiver this spec starts on 127.0.0.1: an admin reaches the page from the admin
// navigation, adds an endpoint (its secret shown once), sends a test event and sees it delivered,
// changes, disables, enables and removes it; on a phone, a delivery to a dead endpoint says it is
// retrying and when, and once the endpoint answers again it is sent now and delivered. Axe finds
// no serious or critical violation and the page never scrolls sideways.

let receiver: Server;
let base = "";
const received: { path: string; webhookId: string }[] = [];
const failing = new Set<string>();

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push({ path: req.url ?? "/", webhookId: String(req.headers["webhook-id"]) });
      res.writeHead(failing.has(req.url ?? "/") ? 503 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const tag = () => Math.random().toString(36).slice(2, 8);

async function withReason(page: Page, dialogName: string | RegExp, submit: string, reason = "e2e") {
  const dialog = page.getByRole("dialog", { name: dialogName });
  await dialog.getByLabel("Reason (required)").fill(reason);
  await dialog.getByRole("button", { name: submit }).click();
  return dialog;
}

async function addEndpoint(page: Page, url: string) {
  await page.getByRole("button", { name: "Add an endpoint…" }).click();
  const form = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  await form.getByLabel("URL").fill(url);
  await withReason(page, "Add a webhook endpoint", "Add the endpoint", "on call");
  const secret = page.getByRole("dialog", { name: "Endpoint added" });
  await expect(secret.getByRole("textbox")).toHaveValue(/^whsec_/);
  await secret.getByRole("button", { name: "Done" }).click();
  await expect(secret).toBeHidden();
  return page.getByRole("region", { name: url });
}

async function checkPage(page: Page, what: string) {
  await expectNoSidewaysScroll(page, what);
  expect(await seriousViolations(page), what).toEqual([]);
}

test("an admin adds an endpoint, tests it, changes, disables, enables and removes it", async ({ page, loginAs }) => {
  await loginAs("admin");
  await page.goto("/admin");
  await page.getByRole("navigation", { name: "Administration" }).getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();

  const url = `${base}/hooks-${tag()}`;
  const endpoint = await addEndpoint(page, url);
  await expect(endpoint).toBeVisible();
  await expect(endpoint.getByText("No delivery yet")).toBeVisible();

  await endpoint.getByRole("button", { name: "Send a test event" }).click();
  const row = endpoint.getByRole("row").filter({ hasText: "webhook.test" });
  await expect(row.getByText("delivered")).toBeVisible({ timeout: 20_000 });
  const arrived = received.filter((r) => r.path === new URL(url).pathname);
  expect(arrived).toHaveLength(1);
  await expect(row).toContainText(arrived[0]!.webhookId);
  await checkPage(page, "the webhooks page at 1280 px");

  await endpoint.getByRole("button", { name: "Change…" }).click();
  const change = page.getByRole("dialog", { name: `Change the endpoint ${url}` });
  await change.getByLabel("cause.new").uncheck();
  await change.getByLabel("Notify when more records are open than").fill("25");
  await withReason(page, `Change the endpoint ${url}`, "Save the endpoint");
  await expect(change).toBeHidden();
  await expect(endpoint).toContainText("open above 25");
  await expect(endpoint).not.toContainText("cause.new");

  await endpoint.getByRole("button", { name: "Disable…" }).click();
  await withReason(page, `Disable the endpoint ${url}`, "Disable");
  await expect(endpoint.getByText("disabled", { exact: true })).toBeVisible();
  await expect(endpoint.getByRole("button", { name: "Send a test event" })).toBeDisabled();
  await endpoint.getByRole("button", { name: "Enable…" }).click();
  await withReason(page, `Enable the endpoint ${url}`, "Enable");
  await expect(endpoint.getByRole("button", { name: "Send a test event" })).toBeEnabled();

  await endpoint.getByRole("button", { name: "Remove…" }).click();
  await withReason(page, `Remove the endpoint ${url}`, "Remove");
  await expect(endpoint).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Endpoint ${url} removed.` })).toBeVisible();
});

test("on a phone, a delivery to a dead endpoint says it is retrying; sent now once it answers, it is delivered", async ({
  page,
  loginAs,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await loginAs("admin");
  await page.goto("/admin/webhooks");
  const path = `/dead-${tag()}`;
  failing.add(path);
  const endpoint = await addEndpoint(page, `${base}${path}`);
  await endpoint.getByRole("button", { name: "Send a test event" }).click();
  const row = endpoint.getByRole("row").filter({ hasText: "webhook.test" });
  await expect(row.getByText("retrying: attempt 1 failed")).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText("503 in");
  await expect(row).toContainText("next");
  await checkPage(page, "the webhooks page at 390 px");

  failing.delete(path);
  await row.getByRole("button", { name: /Send the webhook.test delivery .* again/ }).click();
  const dialog = await withReason(page, "Send the webhook.test delivery again", "Send it again", "receiver fixed");
  await expect(dialog).toBeHidden();
  await expect(row.getByText("delivered")).toBeVisible({ timeout: 20_000 });
  const attempts = received.filter((r) => r.path === path);
  expect(attempts).toHaveLength(2);
  expect(new Set(attempts.map((a) => a.webhookId)).size).toBe(1);
  await checkPage(page, "the webhooks page at 390 px, delivered");
});
