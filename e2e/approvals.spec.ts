import type { Locator, Page } from "@playwright/test";
import { expect, invoiceReminder, test, uniqueTag } from "./records";

// Four eyes (docs/decisions/0031-four-eyes-approvals.md) in Chromium, with two people: an owner's
// cancel waits on the record page; another owner sees the header's badge, approves on /approvals,
// and the record is cancelled with the requester's name in its history.

/** Opens an action's dialog, again until it opens: a click before hydration does nothing. */
async function openAction(page: Page, label: string): Promise<Locator> {
  const button = page.getByRole("region", { name: "Actions" }).getByRole("button", { name: label, exact: true });
  const dialog = page.getByRole("dialog", { name: label });
  await expect(async () => {
    if (!(await dialog.isVisible())) await button.click();
    await expect(dialog).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  return dialog;
}

test("an owner's cancel waits for another owner, who approves it from the badge and the pending view", async ({
  page,
  loginAs,
  anotherPerson,
  report,
  sql,
}) => {
  const tag = uniqueTag();
  const domain = `pay-${tag}`;
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'e2e')`, [domain]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${domain}.*`, domain]);
  await sql(`INSERT INTO approval_policies (domain, decision, updated_by) VALUES ($1, 'cancel', 'e2e')`, [domain]);
  const message = { ...invoiceReminder(tag, { sequence: 1 }), kind: `${domain}.charge` };
  const id = await report({ category: "manual-review", reason: "invalid-payload", requiredCheck: "look", message });

  const requester = await loginAs("owner");
  await page.goto(`/reviews/${id}`);
  const dialog = await openAction(page, "Cancel the effect");
  await dialog.getByLabel("Reason (required)").fill("The customer withdrew the order.");
  await dialog.getByRole("checkbox", { name: /I have done the required check|I have checked that the effect/ }).check();
  await dialog.getByRole("button", { name: "Cancel the effect" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "waiting for approval by another owner" })).toBeVisible();
  await expect(page.getByTestId("record-approval")).toContainText("Waiting for approval by another owner");
  expect(((await (await page.request.get(`/api/v1/reviews/${id}`)).json()) as { status: string }).status).toBe("open");

  // The requester's own request is not theirs to approve, and their badge does not count it.
  await page.goto("/approvals");
  const own = page.getByTestId("approval").filter({ hasText: id });
  await expect(own).toContainText("Your request");
  await expect(own.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(page.getByTestId("approvals-badge")).toHaveText("Approvals");

  const approver = await anotherPerson("owner");
  const other = approver.page;
  await other.goto(`/reviews/${id}`);
  await expect(other.getByTestId("record-approval")).toContainText(`asked by user:${requester.email}`);
  const badge = other.getByTestId("approvals-badge");
  await expect(badge.getByLabel("1 waiting for you")).toBeVisible();
  await expect(async () => {
    await badge.click();
    await expect(other).toHaveURL(/\/approvals$/, { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });

  const card = other.getByTestId("approval").filter({ hasText: id });
  await expect(card).toContainText(`Asked by user:${requester.email}`);
  await expect(card).toContainText("The customer withdrew the order.");
  // What it would cancel, not only a record id.
  await expect(card).toContainText(`Effect key${message.effectKey}`);
  await expect(card).toContainText(`Kind${domain}.charge`);
  // Filled and sent again until hydrated; once approved the card stays, showing the outcome.
  const outcome = card.getByText(`approved by user:${approver.email}`);
  await expect(async () => {
    if ((await outcome.count()) > 0) return;
    await card.getByLabel("Reason (required)").fill("Confirmed with the customer too.");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect(outcome).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 60_000 });
  await expect(badge.getByLabel(/waiting for you/)).toHaveCount(0);

  const record = (await (await other.request.get(`/api/v1/reviews/${id}`)).json()) as {
    status: string;
    history: { action: string; actor: string; details: Record<string, unknown> }[];
  };
  expect(record.status).toBe("cancelled");
  expect(record.history.find((h) => h.action === "cancel")).toMatchObject({
    actor: `user:${requester.email}`,
    details: { approval: { requestedBy: `user:${requester.email}`, approvedBy: `user:${approver.email}` } },
  });
  await other.goto(`/reviews/${id}`);
  await expect(other.getByTestId("record-approval")).toHaveCount(0);
  await other.goto("/approvals");
  await other.getByLabel("Status").selectOption("approved");
  await expect(other.getByTestId("approval").filter({ hasText: id })).toContainText(
    `approved by user:${approver.email}`,
  );
});
