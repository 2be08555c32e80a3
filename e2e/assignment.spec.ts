import type { Page } from "@playwright/test";
import { clickUntil, expect, invoiceReminder, openDialog, test, uniqueTag } from "./records";

// Assignment (ADR 0028) in Chromium: assign to me on the record page, find the record under
// "Mine" in the queue with its assignee badge; assign to another person; unassign.

function assignment(page: Page) {
  return page.getByRole("region", { name: "Assignment" });
}

async function assigneeOf(page: Page, id: string): Promise<{ email: string } | null> {
  const response = await page.request.get(`/api/v1/reviews/${id}`);
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { assignee: { email: string } | null }).assignee;
}

test("assign to me, then the Mine filter shows the record with its badge, and only mine", async ({
  page,
  loginAs,
  report,
}) => {
  const tag = uniqueTag();
  const kind = `assign.e2e.${tag}`;
  const mine = invoiceReminder(`${tag}-mine`, { sequence: 1 });
  const other = invoiceReminder(`${tag}-other`, { sequence: 1 });
  const id = await report({
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: "look",
    message: { ...mine, kind },
  });
  await report({
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: "look",
    message: { ...other, kind },
  });
  const me = await loginAs("support");

  await page.goto(`/reviews/${id}`);
  await expect(assignment(page)).toContainText("Not assigned.");
  // No blank band under the buttons: the box ends at its padding (the status line shares their row).
  const box = (await assignment(page).boundingBox())!;
  const button = (await assignment(page).getByRole("button", { name: "Assign to me" }).boundingBox())!;
  expect(box.y + box.height - (button.y + button.height)).toBeLessThan(24);
  // One click: taking a record for oneself needs no typed reason.
  await clickUntil(assignment(page).getByRole("button", { name: "Assign to me" }), () =>
    page.getByRole("status").filter({ hasText: "Assigned to you." }).isVisible(),
  );
  await expect(page.getByRole("status").filter({ hasText: "Assigned to you." })).toBeVisible();
  await expect(assignment(page)).toContainText(`Assigned to ${me.email} (you)`);
  expect(await assigneeOf(page, id)).toMatchObject({ email: me.email });

  await page.goto(`/reviews?kind=${encodeURIComponent(kind)}`);
  await expect(page.getByRole("link", { name: other.id })).toBeVisible();
  // Controlled by the URL: the box is checked once the URL says so (retried until hydrated).
  await clickUntil(page.getByRole("checkbox", { name: "Mine (assigned to me)" }), async () =>
    page.url().includes("assignee=me"),
  );
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: mine.id }) });
  await expect(row).toBeVisible();
  await expect(row.getByTitle(`Assigned to ${me.email}`)).toBeVisible();
  await expect(page.getByRole("link", { name: other.id })).toHaveCount(0);

  // The filter is in the URL: a reload (server-rendered first page) shows the same.
  await page.reload();
  await expect(page.getByRole("link", { name: mine.id })).toBeVisible();
  await expect(page.getByRole("link", { name: other.id })).toHaveCount(0);

  // "Bulk action on this filter" keeps Mine: the form counts only my record of the kind, and the
  // operation keeps my id.
  await page
    .getByRole("group", { name: "Bulk operations" })
    .getByRole("link", { name: "Bulk action on this filter" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "New bulk operation" })).toBeVisible();
  await expect(page.getByText(/^you \(kept as your person id/)).toBeVisible();
  await expect(page.getByTestId("selection-count")).toHaveText("1 record matches now");
});

test("an owner assigns to a support person, then unassigns; history says both", async ({
  page,
  loginAs,
  report,
  createPerson,
}) => {
  const tag = uniqueTag();
  const id = await report({
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: "find message 1",
    message: invoiceReminder(tag, { sequence: 2 }),
  });
  const support = await createPerson("support");
  await loginAs("owner");
  await page.goto(`/reviews/${id}`);

  const dialog = await openDialog(
    page,
    assignment(page).getByRole("button", { name: "Assign to a person…" }),
    "Assign to a person",
  );
  const person = dialog.getByLabel("Person");
  await expect(person.locator("option", { hasText: support.email })).toHaveCount(1);
  await person.selectOption({ label: `${support.email} · support` });
  await dialog.getByLabel("Reason (required)").fill("support is on call");
  await dialog.getByRole("button", { name: "Assign", exact: true }).click();
  await expect(assignment(page)).toContainText(`Assigned to ${support.email}`);
  expect(await assigneeOf(page, id)).toMatchObject({ email: support.email });

  const unassign = await openDialog(page, assignment(page).getByRole("button", { name: "Unassign…" }), "Unassign");
  await unassign.getByLabel("Reason (required)").fill("handled in the team channel");
  await unassign.getByRole("button", { name: "Unassign", exact: true }).click();
  await expect(assignment(page)).toContainText("Not assigned.");
  expect(await assigneeOf(page, id)).toBeNull();
  const history = page.getByRole("region", { name: /^History/ });
  await expect(history.getByText("support is on call")).toBeVisible();
  await expect(history.getByText("handled in the team channel")).toBeVisible();
});
