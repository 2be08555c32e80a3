import { expect, invoiceReminder, test, uniqueTag } from "./records";

// A bulk operation an approval policy holds lands on its request (never /operations/undefined),
// and filing it again lands on the same request instead of a second one; the grouped view offers
// a bulk replay only where a replay fits the cause, and shows the count first (on screen on a phone).

test("a held bulk replay lands on its approval request; filing it again lands there too", async ({
  page,
  loginAs,
  report,
  sql,
}) => {
  const tag = uniqueTag();
  const domain = `pay-${tag}`;
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'e2e')`, [domain]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${domain}.*`, domain]);
  await sql(`INSERT INTO approval_policies (domain, decision, updated_by) VALUES ($1, 'operation', 'e2e')`, [domain]);
  const kind = `${domain}.charge`;
  for (let i = 0; i < 2; i += 1) {
    await report({
      category: "manual-review",
      reason: "retry-limit",
      requiredCheck: "the provider is back",
      message: { ...invoiceReminder(`${tag}-${i}`), kind },
    });
  }
  await loginAs("owner");

  const file = async () => {
    await page.goto(`/reviews?kind=${encodeURIComponent(kind)}`);
    await expect(page.getByRole("link", { name: `msg-${tag}-0` })).toBeVisible();
    const bar = page.getByRole("group", { name: "Bulk operations" });
    await page.getByRole("checkbox", { name: "Select all records on this page" }).check();
    await expect(bar).toContainText("2 selected:");
    await bar.getByRole("link", { name: "Replay…" }).click();
    await expect(page.getByTestId("selection-count")).toHaveText("2 records match now");
    await page.getByLabel("Reason (required)").fill("The provider is back.");
    await page.getByRole("button", { name: "Create the operation" }).click();
  };

  await file();
  await expect(page).toHaveURL(/\/approvals\?request=[0-9a-f-]{36}$/);
  const requestId = new URL(page.url()).searchParams.get("request")!;
  await expect(page.getByText("Held for approval")).toBeVisible();
  const card = page.locator(`[data-approval-id="${requestId}"]`);
  await expect(card).toHaveAttribute("aria-current", "true");
  await expect(card).toContainText("Bulk replay operation of 2 records");
  await expect(card).toContainText("2 records chosen one by one");

  await file();
  await expect(page).toHaveURL(new RegExp(`/approvals\\?request=${requestId}&already=1$`));
  await expect(page.getByText("This request already waits for approval")).toBeVisible();
  const filed = await sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM approval_requests WHERE decision = 'operation' AND domain = $1`,
    [domain],
  );
  expect(filed).toEqual([{ n: 1 }]);
});

test("the grouped view offers no replay for a cause a replay does not fit", async ({ page, loginAs, report }) => {
  const tag = uniqueTag();
  const reason = `provider-silent-${tag}`;
  for (let i = 0; i < 3; i += 1) {
    await report({
      category: "effect-result-unknown",
      reason,
      requiredCheck: "ask the provider whether the effect was sent",
      message: invoiceReminder(`${tag}-${i}`),
    });
  }
  await loginAs("owner");
  await page.goto("/reviews?view=groups");
  const row = page.getByRole("row").filter({ hasText: reason });
  await expect(row).toContainText("3");
  await expect(row.getByRole("link", { name: /^Replay this cause/ })).toHaveCount(0);
  await expect(row).toContainText("Replay does not fit");
});

test("on a phone the grouped view shows each group's count on screen", async ({ page, loginAs, report }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const tag = uniqueTag();
  const reason = `provider-down-${tag}`;
  for (let i = 0; i < 2; i += 1) {
    await report({
      category: "manual-review",
      reason,
      requiredCheck: "the provider is back",
      message: invoiceReminder(`${tag}-${i}`),
    });
  }
  await loginAs("owner");
  await page.goto("/reviews?view=groups");
  const count = page.getByRole("row").filter({ hasText: reason }).getByRole("cell").first();
  await expect(count).toHaveText("2");
  // Within the window without scrolling the table's frame sideways.
  const box = (await count.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
});
