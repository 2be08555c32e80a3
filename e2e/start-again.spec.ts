import { seriousViolations } from "./axe";
import { expect, invoiceReminder, test, uniqueTag } from "./records";

// Start again on what is left: an ended operation offers a new one over the records it did not
// finish, its action chosen already; nothing is sent from the link, the new operation is planned
// and dry-run like any other. At a desktop and a phone width, axe-clean, no sideways page scroll.

for (const width of [1280, 390]) {
  test.describe(`start again at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("an aborted operation offers a new one over what it left, pre-filled, planned and not sent", async ({
      page,
      loginAs,
      report,
    }) => {
      const tag = uniqueTag();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        ids.push(
          await report({
            category: "manual-review",
            reason: `again-${tag}`,
            requiredCheck: "the customer confirmed",
            message: invoiceReminder(`${tag}-${i}`),
          }),
        );
      }
      await loginAs("owner");

      await page.goto(`/operations/new?action=cancel&ids=${ids.join(",")}`);
      await expect(page.getByTestId("selection-count")).toHaveText("3 records match now");
      await page.getByLabel("Reason (required)").fill("Customer asked to stop these reminders.");
      await page.getByRole("button", { name: "Create the operation" }).click();
      await expect(page).toHaveURL(/\/operations\/[0-9a-f-]{36}$/);
      const sourcePath = new URL(page.url()).pathname;
      const controls = page.getByRole("region", { name: "Controls" });
      await expect(controls.getByRole("link", { name: /Start again/ }), "a live operation offers none").toHaveCount(0);

      await controls.getByRole("button", { name: "Abort…" }).click();
      const dialog = page.getByRole("dialog", { name: "Abort the operation" });
      await dialog.getByLabel("Reason (required)").fill("Wrong list; starting again after checking.");
      await dialog.getByRole("button", { name: "Abort the operation", exact: true }).click();
      await expect(page.getByRole("status", { name: "Operation state" })).toContainText("aborted");

      const again = controls.getByRole("link", { name: "Start again on the 3 records it did not finish" });
      await expect(again).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await seriousViolations(page)).toEqual([]);
      await again.click();

      await expect(page).toHaveURL(/\/operations\/new\?action=cancel&unfinished=[0-9a-f-]{36}$/);
      await expect(page.getByTestId("selection-count")).toHaveText("3 records match now");
      await expect(page.getByText("The records an earlier operation did not finish")).toBeVisible();
      await expect(page.getByRole("link", { name: "Open that operation" })).toHaveAttribute("href", sourcePath);
      await expect(page.getByRole("radio", { name: "Cancel" })).toBeChecked();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByLabel("Reason (required)").fill("Checked the list: cancel these three.");
      await page.getByRole("button", { name: "Create the operation" }).click();
      await expect(page).toHaveURL(/\/operations\/[0-9a-f-]{36}$/);
      expect(new URL(page.url()).pathname).not.toBe(sourcePath);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Cancel of 3 records");
      await expect(page.getByRole("status", { name: "Operation state" })).toContainText("planned");
      await expect(
        page.getByRole("region", { name: "Controls" }).getByRole("button", { name: "Dry run", exact: true }),
      ).toBeVisible();
      // Nothing was sent: the records are still open.
      for (const id of ids) {
        const record = (await (await page.request.get(`/api/v1/reviews/${id}`)).json()) as { status: string };
        expect(record.status).toBe("open");
      }
    });
  });
}
