import type { Page } from "@playwright/test";
import { expect, invoiceReminder, redisSource, type ReportInput, test, uniqueTag } from "./records";

// The queue in Chromium: sorting through the API's sorted keyset, the keyboard (j/k/
// Enter, ?), the reason chips' one row with "more…", the error class in the rows, no sideways
// scroll of the page, and how many Tab presses reach the first row. Each test reports its own
// records under a unique kind and looks at them through the kind filter.

/** The message ids of the rows, top to bottom. */
async function rowIds(page: Page): Promise<string[]> {
  return page.locator("#queue-table tbody a[data-row-link]").allTextContents();
}

function message(tag: string, i: number, kind: string) {
  return { ...invoiceReminder(`${tag}-${i}`), kind };
}

test("sorting by attempts, both directions, end to end", async ({ page, loginAs, report }) => {
  const tag = uniqueTag();
  const kind = `sort.${tag}`;
  for (const [i, attempts] of [3, 9, 1].entries()) {
    await report({
      category: "manual-review",
      reason: "retry-limit",
      requiredCheck: `check ${tag} ${i}`,
      attempts,
      lastError: `ETIMEDOUT after ${attempts} tries`,
      message: message(tag, i, kind),
    });
  }
  await loginAs("owner");
  await page.goto(`/reviews?kind=${kind}`);
  // Default order: newest first.
  await expect.poll(() => rowIds(page)).toEqual([`msg-${tag}-2`, `msg-${tag}-1`, `msg-${tag}-0`]);

  const header = page.getByRole("columnheader", { name: /Attempts/ });
  await header.getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=-attempts/);
  await expect(header).toHaveAttribute("aria-sort", "descending");
  await expect.poll(() => rowIds(page)).toEqual([`msg-${tag}-1`, `msg-${tag}-0`, `msg-${tag}-2`]);

  await header.getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=attempts/);
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  await expect.poll(() => rowIds(page)).toEqual([`msg-${tag}-2`, `msg-${tag}-0`, `msg-${tag}-1`]);

  // The order survives a reload (it is in the URL, and the server prefetches the sorted page).
  await page.reload();
  await expect.poll(() => rowIds(page)).toEqual([`msg-${tag}-2`, `msg-${tag}-0`, `msg-${tag}-1`]);
  // The error class is in the row, in front of the last error.
  await expect(page.getByRole("row").filter({ hasText: `msg-${tag}-1` })).toContainText("ETIMEDOUT after 9 tries");
});

test("j/k move between rows, Enter opens one, ? lists the keys", async ({ page, loginAs, report }) => {
  const tag = uniqueTag();
  const kind = `keys.${tag}`;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(
      await report({
        category: "sequence-gap",
        reason: "sequence-gap",
        requiredCheck: `find the predecessors of ${tag} ${i}`,
        lastError: "dependency-not-ready: ledger entry missing",
        source: redisSource(tag),
        message: message(tag, i, kind),
      }),
    );
  }
  await loginAs("owner");
  await page.goto(`/reviews?kind=${kind}`);
  const links = page.locator("#queue-table tbody a[data-row-link]");
  await expect(links).toHaveCount(3);
  // Category and reason are equal: said once per row. The error class is shown.
  const firstRow = page.getByRole("row").filter({ hasText: `msg-${tag}-2` });
  await expect(firstRow.getByText("sequence-gap", { exact: true })).toHaveCount(1);
  await expect(firstRow).toContainText("dependency-not-ready");

  // The rows arrive server-rendered; the keys work once the page is hydrated (the counts are
  // loaded by the browser, so they prove it).
  await expect(page.getByText(/\d+ records in total/)).toBeVisible({ timeout: 30_000 });
  await page.keyboard.press("j");
  await expect(links.nth(0)).toBeFocused();
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(links.nth(2)).toBeFocused();
  await page.keyboard.press("k");
  await expect(links.nth(1)).toBeFocused();

  // Typing in the search is text, not a shortcut.
  await page.getByLabel("Search").fill("jk");
  await expect(page.getByLabel("Search")).toHaveValue("jk");
  await expect(page.getByLabel("Search")).toBeFocused();

  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("Next record");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // Back from the dialog, the first j lands on the current row (the second, after k above).
  await page.keyboard.press("j");
  await expect(links.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/reviews/${ids[1]}$`));
});

test("forty long reasons: one row of chips with more…, and the page never scrolls sideways at 1280 px", async ({
  page,
  loginAs,
  report,
}) => {
  const tag = uniqueTag();
  const kind = `chips.${tag}`;
  const reasons = Array.from({ length: 40 }, (_, i) => `client-sent-${tag}-${i}-${"very-long-reason-".repeat(9)}`);
  // Counts differ, so the largest is known: reason 0 with 3 records, reason 1 with 2.
  for (const [i, reason] of reasons.entries()) {
    const copies = i === 0 ? 3 : i === 1 ? 2 : 1;
    for (let c = 0; c < copies; c++) {
      await report({
        category: "manual-review",
        reason,
        requiredCheck: `check ${reason}`.repeat(3),
        lastError: `${"E".repeat(60)} ${"a very long error text ".repeat(12)}`,
        message: message(`${tag}-${c}`, i, kind),
      });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await loginAs("owner");
  await page.goto(`/reviews?kind=${kind}`);
  const more = page.getByRole("button", { name: /^more… \(\d+\)$/ });
  // The counts load after the rows (slow on a loaded machine).
  await expect(more).toBeVisible({ timeout: 30_000 });
  // The chips count every record awaiting an outcome in this database, other tests' too, so which
  // reasons make the row depends on what ran before; what holds is one row, and the rest behind more….
  const counts = page.getByRole("region", { name: "Counts awaiting an outcome" });

  const overflow = () =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  // One row: every chip of the row sits on the same line.
  const tops = await counts
    .locator("ul[aria-labelledby='stats-reason'] li")
    .evaluateAll((items) => items.map((li) => Math.round(li.getBoundingClientRect().top)));
  expect(new Set(tops).size).toBe(1);

  await more.click();
  await expect(more).toHaveAttribute("aria-expanded", "true");
  const panel = page.getByRole("list", { name: "More reasons" });
  await expect(panel).toBeVisible();
  expect(await overflow()).toBeLessThanOrEqual(0);
  await panel.getByRole("button", { name: new RegExp(`^client-sent-${tag}-39-`) }).click();
  await expect(page).toHaveURL(new RegExp(`reason=client-sent-${tag}-39-`));
  await expect(page.locator("#queue-table tbody a[data-row-link]")).toHaveCount(1);
  expect(await overflow()).toBeLessThanOrEqual(0);
});

test("the first row is a few Tab presses from the top of the page", async ({ page, loginAs, report }) => {
  const tag = uniqueTag();
  await report({
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: `check ${tag}`,
    message: message(tag, 0, `tabs.${tag}`),
  });
  await loginAs("owner");
  await page.goto(`/reviews?kind=tabs.${tag}`);
  const firstLink = page.locator("#queue-table tbody a[data-row-link]").first();
  await expect(firstLink).toBeVisible();
  await expect(page.getByText(/\d+ records in total/)).toBeVisible();

  // Pure Tab presses to the first row: the reason chips are capped, but the filters still come first.
  let presses = 0;
  while (presses < 60) {
    await page.keyboard.press("Tab");
    presses++;
    if (await firstLink.evaluate((el) => el === document.activeElement)) break;
  }
  test.info().annotations.push({ type: "tab presses to the first row", description: String(presses) });
  // Before the keyboard-first queue: 32 (every reason chip came first, and a checkbox per row),
  // with two stops fewer above the rows than today: the header's zone choice (ADR 0043), and the
  // summary's link to the scheduled replays, there whenever some replay is scheduled; and two
  // more for saved views (ADR 0047): the navigation's Views and the queue's "Save view…".
  expect(presses).toBeLessThanOrEqual(35);

  // With the skip link: Tab to "Skip to the records", Enter, and the row has focus.
  await page.goto(`/reviews?kind=tabs.${tag}`);
  await expect(firstLink).toBeVisible();
  // The counts first: their summary may hold a link, which comes before the skip link.
  await expect(page.getByText(/\d+ records in total/)).toBeVisible();
  const skip = page.getByRole("link", { name: "Skip to the records" });
  let toSkip = 0;
  while (toSkip < 60) {
    await page.keyboard.press("Tab");
    toSkip++;
    if (await skip.evaluate((el) => el === document.activeElement)) break;
  }
  test.info().annotations.push({ type: "tab presses to the skip link", description: String(toSkip) });
  // The summary's "N replays scheduled" counts the whole queue, so another test's scheduled replay
  // puts one more stop before the skip link: allowed for, not counted against it.
  const scheduledLink = await page.getByRole("link", { name: /replays? scheduled$/ }).count();
  expect(toSkip).toBeLessThanOrEqual(12 + scheduledLink);

  // Enter on it moves focus to the first row.
  await page.keyboard.press("Enter");
  await expect(firstLink).toBeFocused();
});

test("the filter's count, and the scheduled replays one click away", async ({ page, loginAs, report }) => {
  const tag = uniqueTag();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(
      await report({
        category: "manual-review",
        reason: "retry-limit",
        requiredCheck: `check ${tag}`,
        message: message(tag, i, `count.${tag}`),
      }),
    );
  }
  await loginAs("owner");
  // One of them scheduled for tomorrow: a replay no consumer has claimed yet.
  const scheduled = await page.request.post(`/api/v1/reviews/${ids[0]}/actions`, {
    data: {
      action: "replay",
      expectedVersion: 1,
      reason: "after the provider's window",
      checkDone: true,
      runAt: new Date(Date.now() + 86_400_000).toISOString(),
    },
  });
  expect(scheduled.status(), await scheduled.text()).toBe(200);

  await page.goto(`/reviews?kind=count.${tag}&status=open,replay-scheduled`);
  await expect(page.getByTestId("match-count")).toHaveText("3 match · 3 shown");
  await page.goto(`/reviews?kind=count.${tag}`);
  await expect(page.getByTestId("match-count")).toHaveText("2 match · 2 shown");

  // The summary names the scheduled replays; the link lists them.
  await page.getByRole("link", { name: /^\d[\d,]* replays? scheduled$/ }).click();
  await expect(page).toHaveURL(/status=replay-scheduled/);
  await expect(page.locator(`#queue-table a[href*="${ids[0]}"]`)).toBeVisible();
});

interface PhoneFixtures {
  page: Page;
  loginAs: (role: "owner") => Promise<unknown>;
  report: (input: ReportInput) => Promise<string>;
}

/** One record of a kind of its own, opened in the queue at phone width as its owner. */
async function openOnAPhone(
  { page, loginAs, report }: PhoneFixtures,
  kindPrefix: string,
  record: Pick<ReportInput, "attempts" | "lastError"> = {},
) {
  const tag = uniqueTag();
  const kind = `${kindPrefix}.${tag}`;
  await report({
    category: "manual-review",
    reason: `${kindPrefix}-${tag}`,
    requiredCheck: "look",
    ...record,
    message: { ...invoiceReminder(tag), kind },
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await loginAs("owner");
  await page.goto(`/reviews?kind=${kind}`);
  return { tag, kind };
}

test("on a phone the filters wait behind a button that says how many are set; the rows start on the first screen", async ({
  page,
  loginAs,
  report,
}) => {
  const { tag, kind } = await openOnAPhone({ page, loginAs, report }, "phone.filters");
  const form = page.getByRole("search", { name: "Filter the queue" });
  await expect(form.getByLabel("Search")).toBeVisible();
  await expect(form.getByLabel("Status")).toBeHidden();
  const toggle = form.getByRole("button", { name: "Filters (1 set)" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  const firstRow = page.getByRole("link", { name: `msg-${tag}` });
  await expect(firstRow).toBeVisible();
  expect((await firstRow.boundingBox())!.y).toBeLessThan(844);

  await toggle.click();
  await expect(form.getByLabel("Status")).toBeVisible();
  await expect(form.getByLabel("Kind")).toHaveValue(kind);
  await form.getByRole("button", { name: "Hide filters" }).click();
  await expect(form.getByLabel("Kind")).toBeHidden();
});

test("on a phone each record is a card: message, status, attempts and age on screen without sideways scrolling", async ({
  page,
  loginAs,
  report,
}) => {
  const { tag } = await openOnAPhone({ page, loginAs, report }, "phone.cards", {
    attempts: 7,
    lastError: "ETIMEDOUT connecting to provider",
  });
  const row = page.locator("#queue-table tbody tr", { has: page.getByRole("link", { name: `msg-${tag}` }) });
  await expect(row).toBeVisible();
  const onScreen = async (cell: string) => {
    const box = (await row.locator(`td[data-col="${cell}"]`).boundingBox())!;
    expect(box.width, `${cell} has room`).toBeGreaterThan(0);
    expect(box.x, `${cell} starts on screen`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${cell} ends on screen`).toBeLessThanOrEqual(390);
  };
  for (const cell of ["messageId", "status", "error", "attempts", "firstSeenAt"]) await onScreen(cell);
  await expect(row.locator('td[data-col="status"]')).toHaveText(/open/);
  await expect(row.locator('td[data-col="attempts"]')).toHaveText("7");
  await expect(row.locator('td[data-col="error"]')).toContainText("ETIMEDOUT");
  const frame = page.getByRole("group", { name: /^Review records/ });
  const sizes = await frame.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
  expect(sizes.scrollWidth, "the cards fit their box").toBeLessThanOrEqual(sizes.clientWidth + 1);
  // The header keeps the sortable columns: the newest first is one tap away.
  await expect(page.getByRole("button", { name: /^Age/ })).toBeVisible();
});
