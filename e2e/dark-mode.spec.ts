import type { Locator, Page } from "@playwright/test";
import { seriousViolations } from "./axe";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// With the system set to dark, the console is dark (app/globals.css) and stays readable: axe
// finds no serious or critical violation (contrast above all) on pages with real content, at
// desktop and at phone width, and the page never scrolls sideways on the phone.

test.use({ colorScheme: "dark" });

/** The relative luminance (WCAG) of a computed `rgb(...)`/`rgba(...)` colour. */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 1) + 0.7152 * (g ?? 1) + 0.0722 * (b ?? 1);
}

/** The computed background colour of `locator`'s element. */
function backgroundOf(locator: Locator): Promise<string> {
  return locator.evaluate((element) => getComputedStyle(element).backgroundColor);
}

const WIDTHS = [
  { label: "1280 px", viewport: { width: 1280, height: 720 }, phone: false },
  { label: "390 px", viewport: { width: 390, height: 844 }, phone: true },
];

for (const { label, viewport, phone } of WIDTHS) {
  test.describe(`the dark scheme at ${label}`, () => {
    test.use({ viewport });

    let id: string;
    let tag: string;

    test.beforeEach(async ({ report }) => {
      tag = uniqueTag();
      id = await report({
        category: "manual-review",
        reason: "invalid-payload",
        requiredCheck: `correct payload.invoiceId of message msg-${tag} (invoice.reminder schema 2021-03)`,
        lastError: "invalid-payload: payload.invoiceId must be a non-empty string",
        source: redisSource(tag),
        message: invoiceReminder(tag, { payload: { schema: "2021-03", invoiceId: 417 } }),
      });
    });

    /** The page is dark, passes axe and, on the phone, is no wider than the screen. Soft: a run names every failure. */
    async function expectReadable(page: Page, what: string) {
      const body = await backgroundOf(page.locator("body"));
      expect.soft(luminance(body), `${what}: the body's background ${body} is dark`).toBeLessThan(0.2);
      expect.soft(await seriousViolations(page), what).toEqual([]);
      if (phone) {
        const { scrollWidth, clientWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
        }));
        expect.soft(scrollWidth, `${what}: the page is no wider than the screen`).toBeLessThanOrEqual(clientWidth);
      }
    }

    test("the overview, queue, a record, operations, decision log and people", async ({ page, loginAs }) => {
      // Seven pages, each checked by axe: more than the default time on a loaded machine.
      test.slow();
      await loginAs("owner");
      const created = await page.request.post("/api/v1/operations", {
        data: { action: "replay", reason: `dark check ${tag}`, selection: { type: "ids", ids: [id] } },
      });
      expect(created.status(), await created.text()).toBe(201);

      await page.goto("/overview");
      await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
      const arrivals = page.getByRole("region", { name: "Arrivals" });
      await expect(arrivals.locator("canvas").first()).toBeVisible();
      await arrivals.getByText("The chart as a table").click();
      await expect(arrivals.getByRole("table")).toBeVisible();
      await expectReadable(page, "the overview");

      await page.goto("/reviews");
      await expect(page.getByRole("heading", { level: 1, name: "Review queue" })).toBeVisible();
      await expect(page.getByRole("link", { name: `msg-${tag}` })).toBeVisible();
      await expect(page.getByText(/\d+ records in total/)).toBeVisible();
      await expectReadable(page, "the queue");

      await page.goto(`/reviews/${id}`);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(page.getByRole("region", { name: "Actions" })).toBeVisible();
      await expectReadable(page, "a record page");

      // The JSON editor (CodeMirror) follows the scheme too, once the page has hydrated.
      await page.getByRole("button", { name: "Correct and replay", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Correct and replay" });
      await expect(dialog.getByRole("textbox", { name: "Corrected payload (JSON)" })).toBeVisible();
      await expect.poll(async () => luminance(await backgroundOf(dialog.locator(".cm-editor")))).toBeLessThan(0.2);
      await expectReadable(page, "the correction dialog");
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();

      await page.goto("/operations");
      await expect(page.getByRole("heading", { level: 1, name: "Bulk operations" })).toBeVisible();
      await expect(page.getByRole("row").filter({ hasText: `dark check ${tag}` })).toBeVisible();
      await expectReadable(page, "the operations list");

      await page.goto("/audit");
      await expect(page.getByRole("heading", { level: 1, name: "Decision log" })).toBeVisible();
      await expect(page.getByRole("row").filter({ hasText: "operation.created" }).first()).toBeVisible();
      await expect(page.getByRole("region", { name: "Hash chain verification" })).toContainText("Chain intact:");
      await expectReadable(page, "the decision log");

      // People are managed by an admin; signing in again replaces the owner's session.
      const admin = await loginAs("admin");
      await page.goto("/admin");
      await expect(page.getByRole("heading", { level: 1, name: "Administration" })).toBeVisible();
      await expect(
        page.getByRole("region", { name: "People" }).getByRole("row").filter({ hasText: admin.email }),
      ).toBeVisible();
      await expectReadable(page, "the people page");
    });
  });
}
