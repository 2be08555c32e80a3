import type { Page } from "@playwright/test";
import { expectNoSidewaysScroll, seriousViolations } from "./axe";
import { expect, invoiceReminder, openDialog, test, uniqueTag } from "./records";

// Saved views (docs/decisions/0047-saved-views.md): a person saves the queue's filters and sort
// under a name and shares it; it is in their navigation's Views, marked current while the queue
// shows it, and opens the same filtered list; another person sees the shared one. At a laptop's
// width and a phone's, axe clean and without sideways scroll.

/** The message ids of the rows, top to bottom. */
async function rowIds(page: Page): Promise<string[]> {
  return page.locator("#queue-table tbody a[data-row-link]").allTextContents();
}

async function openViews(page: Page) {
  const button = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: /^Views/ });
  await expect(async () => {
    if ((await button.getAttribute("aria-expanded")) !== "true") await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true", { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  return page.getByRole("navigation", { name: "Main" });
}

async function expectClean(page: Page, what: string) {
  expect(await seriousViolations(page), what).toEqual([]);
  await expectNoSidewaysScroll(page, what);
}

for (const width of [1280, 390]) {
  test(`save a shared view, open it from the navigation, another person sees it (${width} px)`, async ({
    page,
    loginAs,
    anotherPerson,
    report,
  }) => {
    await page.setViewportSize({ width, height: width > 800 ? 800 : 844 });
    const tag = uniqueTag();
    const kind = `views.${tag}`;
    for (const [i, attempts] of [2, 7].entries()) {
      await report({
        category: "manual-review",
        reason: "retry-limit",
        requiredCheck: `check ${tag} ${i}`,
        attempts,
        message: { ...invoiceReminder(`${tag}-${i}`), kind },
      });
    }
    // Another kind, which the view leaves out.
    await report({
      category: "manual-review",
      reason: "retry-limit",
      requiredCheck: `check ${tag} other`,
      message: { ...invoiceReminder(`${tag}-other`), kind: `other.${tag}` },
    });

    const ana = await loginAs("owner");
    await page.goto(`/reviews?kind=${kind}&sort=-attempts`);
    await expect.poll(() => rowIds(page)).toEqual([`msg-${tag}-1`, `msg-${tag}-0`]);

    const name = `Most tried ${tag}`;
    const dialog = await openDialog(
      page,
      page.getByRole("button", { name: "Save view…" }),
      "Save this view of the queue",
    );
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByLabel(/Share with the team/).check();
    await expectClean(page, `the save dialog at ${width} px`);
    await dialog.getByRole("button", { name: "Save view" }).click();
    await expect(page.getByRole("status").filter({ hasText: `View “${name}” saved and shared.` })).toBeVisible();

    // In the navigation, and current: the queue shows it now.
    const nav = await openViews(page);
    const link = nav.getByRole("link", { name: new RegExp(name) });
    await expect(link).toHaveAttribute("aria-current", "page");
    await expectClean(page, `the Views panel at ${width} px`);

    // From another page: the first HTML has the views already (no jump when the list arrives).
    expect(await (await page.request.get("/overview")).text()).toContain(name);
    await page.goto("/overview");
    await (await openViews(page)).getByRole("link", { name: new RegExp(name) }).click();
    await expect(page).toHaveURL(new RegExp(`/reviews\\?kind=${kind.replace(".", "\\.")}&sort=-attempts$`));
    await expect.poll(() => rowIds(page)).toEqual([`msg-${tag}-1`, `msg-${tag}-0`]);

    // Another person sees the shared view, by its owner, and it opens the same list.
    const { page: ben } = await anotherPerson("support", { viewport: page.viewportSize()! });
    await ben.goto("/reviews");
    const shared = (await openViews(ben)).getByRole("link", { name: new RegExp(name) });
    await expect(shared).toContainText(`by ${ana.email}`);
    await expectClean(ben, `another person's Views at ${width} px`);
    await shared.click();
    await expect.poll(() => rowIds(ben)).toEqual([`msg-${tag}-1`, `msg-${tag}-0`]);
    await expect((await openViews(ben)).getByRole("link", { name: new RegExp(name) })).toHaveAttribute(
      "aria-current",
      "page",
    );
    // Not theirs to change: no "Manage views…" for someone without views of their own.
    await expect(ben.getByRole("button", { name: "Manage views…" })).toHaveCount(0);

    // The owner stops sharing it, then deletes it.
    const manage = await openDialog(page, page.getByRole("button", { name: "Manage views…" }), "Your saved views");
    await manage.getByRole("button", { name: `Stop sharing the view ${name}` }).click();
    await expect(manage.getByRole("status")).toHaveText(`View “${name}” no longer shared.`);
    await expectClean(page, `the manage dialog at ${width} px`);
    await manage.getByRole("button", { name: `Delete the view ${name}` }).click();
    await expect(manage.getByRole("status")).toHaveText(`View “${name}” deleted.`);
    await manage.getByRole("button", { name: /^Close/ }).click();
    await expect((await openViews(page)).getByRole("link", { name: new RegExp(name) })).toHaveCount(0);
  });
}
