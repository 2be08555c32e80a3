import type { Page } from "@playwright/test";
import { seriousViolations } from "./axe";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// The console's pages pass axe-core with no serious or critical violation, checked on pages
// that hold real content (records of every category, decision-log entries), not empty shells.

test.describe("no serious or critical accessibility violation", () => {
  let ids: { manual: string; gap: string; unknown: string };
  let tag: string;

  test.beforeEach(async ({ report, sql }) => {
    tag = uniqueTag();
    const gapMessage = invoiceReminder(`${tag}-g`, { sequence: 7 });
    const unknownMessage = invoiceReminder(`${tag}-u`);
    await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 4)`, [gapMessage.sequenceKey]);
    await sql(`INSERT INTO effect_journal (effect_key, state, message_id, kind) VALUES ($1, 'unknown', $2, $3)`, [
      unknownMessage.effectKey,
      unknownMessage.id,
      unknownMessage.kind,
    ]);
    ids = {
      manual: await report({
        category: "manual-review",
        reason: "invalid-payload",
        requiredCheck: `correct payload.invoiceId of message msg-${tag}-m (invoice.reminder schema 2021-03)`,
        lastError: "invalid-payload: payload.invoiceId must be a non-empty string",
        source: redisSource(tag),
        message: invoiceReminder(`${tag}-m`, { payload: { schema: "2021-03", invoiceId: 417 } }),
      }),
      gap: await report({
        category: "sequence-gap",
        reason: "sequence-gap",
        requiredCheck: `find messages 5–6 of ${gapMessage.sequenceKey}`,
        source: redisSource(tag),
        message: gapMessage,
      }),
      unknown: await report({
        category: "effect-result-unknown",
        reason: "effect-result-unknown",
        requiredCheck: `ask the provider whether reminder ${tag} was sent (idempotency key ${unknownMessage.effectKey})`,
        lastError: "ETIMEDOUT: provider mail-api did not answer within 10000 ms",
        source: redisSource(tag),
        message: unknownMessage,
      }),
    };
  });

  test("the queue", async ({ page, loginAs }) => {
    await loginAs("owner");
    await page.goto("/reviews");
    await expect(page.getByRole("heading", { level: 1, name: "Review queue" })).toBeVisible();
    await expect(page.getByRole("link", { name: `msg-${tag}-m` })).toBeVisible();
    // The counts load after the rows; wait for them so they are checked too.
    await expect(page.getByText(/\d+ records in total/)).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("the queue grouped by cause", async ({ page, loginAs }) => {
    await loginAs("owner");
    await page.goto("/reviews?view=groups");
    await expect(page.getByRole("heading", { name: "Groups by cause" })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: "invalid-payload" }).first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  for (const category of ["manual", "gap", "unknown"] as const) {
    test(`a record page (${category})`, async ({ page, loginAs }) => {
      await loginAs("owner");
      await page.goto(`/reviews/${ids[category]}`);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(page.getByRole("region", { name: "Actions" })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });
  }

  test("a record page with the correction dialog open", async ({ page, loginAs }) => {
    await loginAs("owner");
    await page.goto(`/reviews/${ids.manual}`);
    await page.getByRole("button", { name: "Correct and replay", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Correct and replay" });
    await expect(dialog.getByRole("textbox", { name: "Corrected payload (JSON)" })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  /** A planned replay of the manual and the gap record, with a dry run, made through the API. */
  async function operationWithDryRun(page: Page): Promise<string> {
    const created = await page.request.post("/api/v1/operations", {
      data: {
        action: "replay",
        reason: `accessibility check ${tag}`,
        selection: { type: "ids", ids: [ids.manual, ids.gap] },
        canarySize: 1,
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const dryRun = await page.request.post(`/api/v1/operations/${id}/dry-run`, { data: {} });
    expect(dryRun.status(), await dryRun.text()).toBe(200);
    return id;
  }

  test("the operations list", async ({ page, loginAs }) => {
    await loginAs("owner");
    await operationWithDryRun(page);
    await page.goto("/operations");
    await expect(page.getByRole("heading", { level: 1, name: "Bulk operations" })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: `accessibility check ${tag}` })).toBeVisible();
    await expect(
      page.getByRole("region", { name: "Automatic replay of ready records" }).getByRole("table"),
    ).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("an operation page with its dry run listed", async ({ page, loginAs }) => {
    await loginAs("owner");
    const id = await operationWithDryRun(page);
    await page.goto(`/operations/${id}`);
    await expect(page.getByRole("heading", { level: 1, name: "Replay of 2 records" })).toBeVisible();
    const dryRun = page.getByRole("region", { name: "Dry run" });
    // The invalid payload and the gap: one record per verdict; list the first.
    await dryRun
      .getByRole("button", { name: /^List the records with the verdict / })
      .first()
      .click();
    await expect(dryRun.getByRole("table", { name: /dry-run verdict/ }).getByRole("link")).toHaveCount(1);
    await expect(page.getByRole("region", { name: "Records and outcomes" }).getByRole("link")).toHaveCount(2);
    await expect(page.getByRole("region", { name: "Decision log" })).toContainText("operation.created");
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("region", { name: "Controls" }).getByRole("button", { name: "Confirm and start…" }).click();
    await expect(page.getByRole("dialog", { name: "Confirm and start" })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("the new-operation form", async ({ page, loginAs }) => {
    await loginAs("owner");
    await page.goto(`/operations/new?action=replay&ids=${ids.manual},${ids.gap}`);
    await expect(page.getByRole("heading", { level: 1, name: "New bulk operation" })).toBeVisible();
    await page.getByRole("button", { name: "Create the operation" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Some fields need attention" })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("the decision log", async ({ page, loginAs }) => {
    await loginAs("owner");
    // One action, so the log has a record entry beside the user and token entries.
    await page.goto(`/reviews/${ids.gap}`);
    await page.getByRole("button", { name: "Add a note", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Add a note" });
    await dialog.getByLabel("Note (required)").fill("Asked the shop whether messages 5 and 6 were ever sent.");
    await dialog.getByRole("button", { name: "Add the note" }).click();
    await expect(dialog).toBeHidden();

    await page.goto("/audit");
    await expect(page.getByRole("heading", { level: 1, name: "Decision log" })).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: "review.note" }).first()).toBeVisible();
    await expect(page.getByRole("region", { name: "Hash chain verification" })).toContainText("Chain intact:");
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("the overview, with its chart and the chart's table open", async ({ page, loginAs }) => {
    await loginAs("owner");
    await page.goto("/overview");
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    const arrivals = page.getByRole("region", { name: "Arrivals" });
    await expect(arrivals.locator("canvas").first()).toBeVisible();
    await arrivals.getByText("The chart as a table").click();
    await expect(arrivals.getByRole("table")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("the API reference, all of it", async ({ page, loginAs }) => {
    await loginAs("auditor");
    await page.goto("/api-reference");
    await expect(page.getByRole("heading", { level: 1, name: "Review Console API" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Report a record", exact: true })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
