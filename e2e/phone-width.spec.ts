import type { Page } from "@playwright/test";
import { type PersonRole, can, type Permission } from "@/lib/access/client";
import { expectNoSidewaysScroll, seriousViolations } from "./axe";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// Every page is usable on a phone (390 px wide): the page itself never scrolls sideways (wide
// tables scroll inside their own box), the signed-in person and Sign out stay on screen, and axe
// finds no serious or critical violation at that width. Checked as every role, on pages that
// hold long unbroken ids, keys and reasons, which are what push a page wider than the screen.

test.use({ viewport: { width: 390, height: 844 } });

/**
 * The pages, by the permission each needs (none: every signed-in person). `{id}`/`{operation}`
 * are the record and the operation made in beforeAll. A page the role may not open answers the
 * 403 page, which is checked too. Add new pages here.
 */
const PAGES: { path: string; permission?: Permission; label: string }[] = [
  { path: "/overview", permission: "reviews.read", label: "the overview" },
  { path: "/reviews", permission: "reviews.read", label: "the queue" },
  { path: "/reviews?view=groups", permission: "reviews.read", label: "the queue grouped by cause" },
  { path: "/reviews/{id}", permission: "reviews.read", label: "a record page" },
  { path: "/operations", permission: "operations.read", label: "the operations list" },
  { path: "/operations/new?action=replay&ids={id}", permission: "operations.read", label: "the new-operation form" },
  { path: "/operations/{operation}", permission: "operations.read", label: "an operation page" },
  { path: "/audit", permission: "audit.read", label: "the decision log" },
  { path: "/admin", permission: "users.manage", label: "the admin page" },
  { path: "/api-reference", label: "the API reference" },
];

const ROLES: PersonRole[] = ["owner", "support", "auditor", "admin"];

/** `locator` is shown and lies wholly inside the viewport's width. */
async function expectOnScreen(page: Page, locator: ReturnType<Page["getByRole"]>, what: string) {
  await expect(locator, what).toBeVisible();
  const box = await locator.evaluate((element) => element.getBoundingClientRect().toJSON() as DOMRect);
  const width = page.viewportSize()!.width;
  expect.soft(box.left, `${what}: left edge`).toBeGreaterThanOrEqual(0);
  expect.soft(box.right, `${what}: right edge`).toBeLessThanOrEqual(width);
}

test.describe("every page at 390 px", () => {
  let id: string;
  let operation: string;
  let tag: string;

  test.beforeEach(async ({ report, sql }) => {
    tag = uniqueTag();
    // Long unbroken strings: the id, keys, reason, error and payload values have no spaces.
    const long = `${tag}-${"x".repeat(90)}`;
    const message = invoiceReminder(long, {
      sequence: 9,
      payload: { schema: "2021-03", invoiceId: `invoice-${long}`, note: `${"unbroken".repeat(30)}` },
    });
    await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 4)`, [message.sequenceKey]);
    id = await report({
      category: "manual-review",
      reason: `unsupported-schema-${tag}-${"y".repeat(120)}`,
      requiredCheck: `check ${message.effectKey} and ${message.sequenceKey} before replaying ${"z".repeat(150)}`,
      lastError: `invalid-payload: payload.invoiceId ${"w".repeat(200)}`,
      source: redisSource(long),
      message,
    });
  });

  /** A planned replay of the record with a long reason and a dry run, made by an owner through the API. */
  async function makeOperation(page: Page) {
    const created = await page.request.post("/api/v1/operations", {
      data: {
        action: "replay",
        reason: `phone check ${tag} ${"r".repeat(150)}`,
        selection: { type: "ids", ids: [id] },
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    operation = ((await created.json()) as { id: string }).id;
    const dryRun = await page.request.post(`/api/v1/operations/${operation}/dry-run`, { data: {} });
    expect(dryRun.status(), await dryRun.text()).toBe(200);
  }

  for (const role of ROLES) {
    test(`as ${role}`, async ({ page, loginAs, anotherPerson }) => {
      // About ten pages, each checked by axe: more than the default time on a loaded machine.
      test.slow();
      // The operation is made by an owner (not every role may make one), then read by this role.
      const { page: ownerPage } = await anotherPerson("owner");
      await makeOperation(ownerPage);

      await loginAs(role);
      for (const { path, permission, label } of PAGES) {
        const url = path.replace("{id}", id).replace("{operation}", operation);
        const response = await page.goto(url);
        const allowed = !permission || can(role, permission);
        const what = `${label} (${url}) as ${role}`;
        expect(response?.status(), what).toBe(allowed ? 200 : 403);
        if (allowed) {
          await expect(page.getByRole("heading", { level: 1 }).first(), what).toBeVisible({ timeout: 30_000 });
          // Content that loads after the page: the queue's rows, the log's entries.
          if (path === "/reviews")
            await expect(page.getByRole("link", { name: new RegExp(tag) }).first()).toBeVisible();
          if (path === "/audit") await expect(page.getByRole("row").nth(1)).toBeVisible();
          await expectOnScreen(
            page,
            page.getByRole("banner").getByRole("button", { name: "Sign out" }),
            `${what}: Sign out`,
          );
          await expect(page.getByRole("banner"), what).toContainText(role);
        } else {
          await expect(page.getByRole("heading", { level: 1, name: "Not allowed" }), what).toBeVisible();
          await expectOnScreen(page, page.getByRole("button", { name: "Sign out" }), `${what}: Sign out`);
        }
        // Soft: one run names every page that fails, not only the first.
        await expectNoSidewaysScroll(page, what);
        expect.soft(await seriousViolations(page), what).toEqual([]);
      }
    });
  }

  test("the sign-in page and the 404 page", async ({ page, loginAs }) => {
    await page.goto("/login");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectNoSidewaysScroll(page, "/login");
    expect(await seriousViolations(page), "/login").toEqual([]);

    await loginAs("support");
    const response = await page.goto(`/no-such-page-${tag}-${"n".repeat(120)}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
    await expectNoSidewaysScroll(page, "the 404 page");
    expect(await seriousViolations(page), "the 404 page").toEqual([]);
  });

  test("a wide table scrolls inside its own box, which the keyboard can reach", async ({ page, loginAs }) => {
    // The decision log keeps its columns on a phone (the queue's rows become cards instead).
    await loginAs("auditor");
    await page.goto("/audit");
    const frame = page.getByRole("group", { name: /^Decision-log entries/ });
    await expect(frame).toBeVisible();
    const sizes = await frame.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(sizes.scrollWidth, "the table is wider than its box").toBeGreaterThan(sizes.clientWidth);
    await frame.focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => frame.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  });
});
