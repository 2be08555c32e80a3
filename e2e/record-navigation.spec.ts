import { seriousViolations } from "./axe";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// Moving through records: a record opened from the queue has previous/next within that list and
// the way back to it; rows ticked in the queue survive opening a record and coming back; a
// shift-click ticks a range. At a desktop width and at a phone's.

for (const width of [1280, 390]) {
  test.describe(`moving through records at ${width} px`, () => {
    test.use({ viewport: { width, height: width === 390 ? 844 : 800 } });

    test("previous, next and back within the list; ticks kept; shift-click ticks a range", async ({
      page,
      report,
      loginAs,
    }) => {
      const tag = uniqueTag();
      const reason = `walk-${tag}`;
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        ids.push(
          await report({
            category: "manual-review",
            reason,
            requiredCheck: `check ${tag}-${i}`,
            source: redisSource(`${tag}${i}`),
            message: invoiceReminder(`${tag}-${i}`),
          }),
        );
      }
      // Newest first: the list shows 3, 2, 1, 0.
      const shown = [...ids].reverse();
      await loginAs("owner");
      await page.goto(`/reviews?reason=${reason}`);
      const row = (i: number) => page.getByRole("link", { name: `msg-${tag}-${i}` });
      const tick = (i: number) => page.getByRole("checkbox", { name: `Select record msg-${tag}-${i}` });
      await expect(row(3)).toBeVisible();
      await expect(row(0)).toBeVisible();

      // A shift-click ticks every row between the last ticked one and the clicked one.
      await tick(3).check();
      await tick(1).click({ modifiers: ["Shift"] });
      const bar = page.getByRole("group", { name: "Bulk operations" });
      await expect(bar).toContainText("3 selected:");
      await expect(tick(2)).toBeChecked();
      await expect(tick(0)).not.toBeChecked();

      await row(2).click();
      await expect(page).toHaveURL(new RegExp(`/reviews/${shown[1]}$`));
      const nav = page.getByRole("navigation", { name: "Records of the list" });
      await expect(nav).toContainText("2 of 4");
      expect(await seriousViolations(page)).toEqual([]);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
      ).toBe(true);

      await nav.getByRole("link", { name: "Next →" }).click();
      await expect(page).toHaveURL(new RegExp(`/reviews/${shown[2]}$`));
      await expect(nav).toContainText("3 of 4");
      await page.keyboard.press("]");
      await expect(page).toHaveURL(new RegExp(`/reviews/${shown[3]}$`));
      await expect(nav).toContainText("4 of 4");
      await expect(nav.getByRole("link", { name: "Next →" })).toHaveCount(0);
      await page.keyboard.press("[");
      await expect(page).toHaveURL(new RegExp(`/reviews/${shown[2]}$`));

      // Back to the list with its filter, and the ticks are still there.
      await nav.getByRole("link", { name: "Back to the list" }).click();
      await expect(page).toHaveURL(new RegExp(`/reviews\\?reason=${reason}$`));
      await expect(tick(3)).toBeChecked();
      await expect(tick(2)).toBeChecked();
      await expect(tick(1)).toBeChecked();
      await expect(tick(0)).not.toBeChecked();
      await expect(bar).toContainText("3 selected:");
    });

    test("a record opened from elsewhere has no list to walk", async ({ page, report, loginAs }) => {
      const tag = uniqueTag();
      const id = await report({
        category: "manual-review",
        reason: `alone-${tag}`,
        requiredCheck: "check",
        message: invoiceReminder(tag),
      });
      await loginAs("owner");
      await page.goto(`/reviews/${id}`);
      await expect(page.getByRole("heading", { name: `alone-${tag}` })).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Records of the list" })).toHaveCount(0);
    });
  });
}

test("new arrivals wait behind a count instead of pushing the rows down", async ({ page, report, loginAs }) => {
  const tag = uniqueTag();
  const reason = `arrive-${tag}`;
  const record = (i: number) =>
    report({ category: "manual-review", reason, requiredCheck: "check", message: invoiceReminder(`${tag}-${i}`) });
  await record(0);
  await record(1);
  await loginAs("owner");
  await page.goto(`/reviews?reason=${reason}`);
  const row = (i: number) => page.getByRole("link", { name: `msg-${tag}-${i}` });
  await expect(row(1)).toBeVisible();
  const firstRowTop = async () => (await row(1).boundingBox())!.y;
  const before = await firstRowTop();

  await record(2);
  // The queue refreshes every 10 s: the new record is counted, not inserted above the rows.
  const more = page.getByRole("button", { name: "1 new record · show" });
  await expect(more).toBeVisible({ timeout: 20_000 });
  await expect(row(2)).toHaveCount(0);
  expect(await firstRowTop()).toBe(before);
  await more.click();
  await expect(row(2)).toBeVisible();
  await expect(more).toHaveCount(0);
});
