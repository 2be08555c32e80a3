import type { Page } from "@playwright/test";
import { expect, invoiceReminder, openDialog, type ReportInput, test, uniqueTag } from "./records";

// A scheduled replay's controls on the record page (ADR 0028): run now, reschedule with a
// preview in the person's zone (UTC unless they chose theirs, ADR 0043), unschedule back to open. Each scenario schedules its own record's replay an hour
// ahead through the API, then uses the page, and checks the outcome through the API.

interface Detail {
  status: string;
  version: number;
  replays: { id: string; state: string; runAt: string }[];
  history: { action: string; reason: string | null; toStatus: string | null }[];
}

async function readRecord(page: Page, id: string): Promise<Detail> {
  const response = await page.request.get(`/api/v1/reviews/${id}`);
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as Detail;
}

/** A held record whose replay an owner (the page's person) scheduled an hour ahead. */
async function scheduledRecord(page: Page, report: (input: ReportInput) => Promise<string>) {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 1 });
  const id = await report({
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: "the ledger is back",
    message,
  });
  const response = await page.request.post(`/api/v1/reviews/${id}/actions`, {
    data: {
      action: "replay",
      expectedVersion: 1,
      reason: "after the ledger's window",
      checkDone: true,
      runAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
  });
  expect(response.status(), await response.text()).toBe(200);
  return { id, message };
}

function controls(page: Page) {
  return page.getByRole("region", { name: "Scheduled replay" });
}

test("run now: the replay becomes due at once and a consumer claims it", async ({
  page,
  loginAs,
  report,
  claimReplaysOf,
}) => {
  await loginAs("owner");
  const { id } = await scheduledRecord(page, report);
  await page.goto(`/reviews/${id}`);
  // The action panel says what can be done now, and where.
  await expect(page.getByRole("region", { name: "Actions" })).toContainText(
    "Until a consumer claims it, run it now, reschedule or unschedule it below, or cancel the effect.",
  );
  const dialog = await openDialog(page, controls(page).getByRole("button", { name: "Run now…" }), "Run the replay now");
  await dialog.getByLabel("Reason (required)").fill("the customer is waiting");
  await dialog.getByRole("button", { name: "Run now", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "The replay is due now." })).toBeVisible();
  const record = await readRecord(page, id);
  expect(record.status).toBe("replay-scheduled");
  expect(Date.parse(record.replays[0]!.runAt)).toBeLessThanOrEqual(Date.now());
  expect(record.history.at(-1)).toMatchObject({ action: "run-now", reason: "the customer is waiting" });
  const claimed = await claimReplaysOf(id);
  expect(claimed.replayId).toBe(record.replays[0]!.id);
});

test("reschedule: it starts at the due time, the chosen time is previewed in UTC and the replay moves to it", async ({
  page,
  loginAs,
  report,
}) => {
  await loginAs("owner");
  const { id } = await scheduledRecord(page, report);
  await page.goto(`/reviews/${id}`);
  const dialog = await openDialog(
    page,
    controls(page).getByRole("button", { name: "Reschedule…" }),
    "Reschedule the replay",
  );
  // It starts at the current due time, in UTC like every time on the page.
  const due = (await readRecord(page, id)).replays[0]!.runAt;
  await expect(dialog.getByLabel("New time (UTC)")).toHaveValue(due.slice(0, 16));
  // Two hours ahead on the minute, typed in UTC.
  const at = new Date(Date.now() + 2 * 3_600_000);
  at.setUTCSeconds(0, 0);
  const iso = at.toISOString();
  await dialog.getByLabel("New time (UTC)").fill(iso.slice(0, 16));
  await expect(dialog.getByText(`Due ${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`)).toBeVisible();
  await dialog.getByLabel("Reason (required)").fill("after the provider's maintenance");
  await dialog.getByRole("button", { name: "Reschedule", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Rescheduled" })).toBeVisible();
  const record = await readRecord(page, id);
  expect(record.replays[0]).toMatchObject({ state: "scheduled", runAt: iso });
  expect(record.history.at(-1)).toMatchObject({ action: "reschedule", reason: "after the provider's maintenance" });
});

test("unschedule: the replay is withdrawn, the record is open again and the controls are gone", async ({
  page,
  loginAs,
  report,
}) => {
  await loginAs("owner");
  const { id } = await scheduledRecord(page, report);
  await page.goto(`/reviews/${id}`);
  const dialog = await openDialog(
    page,
    controls(page).getByRole("button", { name: "Unschedule…" }),
    "Unschedule the replay",
  );
  await dialog.getByLabel("Reason (required)").fill("wait for the owner of the account");
  await dialog.getByRole("button", { name: "Unschedule", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Unscheduled: the record is open again." })).toBeVisible();
  await expect(controls(page)).toHaveCount(0);
  // The action panel offers the replay again.
  await expect(
    page.getByRole("region", { name: "Actions" }).getByRole("button", { name: "Replay", exact: true }),
  ).toBeVisible();
  const record = await readRecord(page, id);
  expect(record.status).toBe("open");
  expect(record.replays[0]!.state).toBe("cancelled");
  expect(record.history.at(-1)).toMatchObject({ action: "unschedule", toStatus: "open" });
});

test("support sees the scheduled replay without its controls", async ({ page, loginAs, report }) => {
  await loginAs("owner");
  const { id } = await scheduledRecord(page, report);
  await page.context().clearCookies();
  await loginAs("support");
  await page.goto(`/reviews/${id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(controls(page)).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Actions" })).toContainText(
    "An owner can run it now, reschedule, unschedule or cancel it.",
  );
});

test.describe("in a browser in Los Angeles", () => {
  test.use({ timezoneId: "America/Los_Angeles" });

  test("a replay at 09:00 and a reschedule to 09:00 store the same instant", async ({ page, loginAs, report }) => {
    await loginAs("owner");
    // Tomorrow, 09:00, as typed in both forms (the page's times are UTC, whatever the browser's zone).
    const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const typed = `${day}T09:00`;

    const tag = uniqueTag();
    const open = await report({
      category: "manual-review",
      reason: "retry-limit",
      requiredCheck: "the ledger is back",
      message: invoiceReminder(tag, { sequence: 1 }),
    });
    await page.goto(`/reviews/${open}`);
    const replay = await openDialog(
      page,
      page.getByRole("region", { name: "Actions" }).getByRole("button", { name: "Replay", exact: true }),
      "Replay",
    );
    await replay.getByLabel("At a time (UTC)").check();
    await replay.getByLabel("Replay at (UTC)").fill(typed);
    await replay.getByLabel("Reason (required)").fill("after the ledger's window");
    await replay.getByRole("checkbox").check();
    await replay.getByRole("button", { name: "Schedule the replay" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Replay: done" })).toBeVisible();
    const replayed = (await readRecord(page, open)).replays[0]!.runAt;

    const { id } = await scheduledRecord(page, report);
    await page.goto(`/reviews/${id}`);
    const reschedule = await openDialog(
      page,
      controls(page).getByRole("button", { name: "Reschedule…" }),
      "Reschedule the replay",
    );
    await reschedule.getByLabel("New time (UTC)").fill(typed);
    await reschedule.getByLabel("Reason (required)").fill("after the ledger's window");
    await reschedule.getByRole("button", { name: "Reschedule", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "Rescheduled" })).toBeVisible();
    const rescheduled = (await readRecord(page, id)).replays[0]!.runAt;

    expect(replayed).toBe(`${day}T09:00:00.000Z`);
    expect(rescheduled).toBe(replayed);
  });

  test("a person who chooses Los Angeles time reads and types every time in it, and the choice is kept", async ({
    page,
    loginAs,
    report,
  }) => {
    const LA = "America/Los_Angeles";
    const inLosAngeles = (iso: string) =>
      new Intl.DateTimeFormat("sv-SE", {
        timeZone: LA,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      })
        .format(new Date(iso))
        .replace(" ", "T");
    await loginAs("owner");
    const { id } = await scheduledRecord(page, report);
    await page.goto(`/reviews/${id}`);
    const zone = page.getByRole("combobox", { name: "Show times in" });
    await expect(zone).toHaveValue("UTC");
    await expect(controls(page)).toContainText(" UTC");

    // The header offers this browser's zone; choosing it changes every time on the page at once.
    await zone.selectOption(LA);
    const due = (await readRecord(page, id)).replays[0]!.runAt;
    await expect(controls(page)).toContainText(`Due ${inLosAngeles(due).replace("T", " ")}`);
    await expect(controls(page)).toContainText(LA);

    // The reschedule starts at the due time, as Los Angeles reads it, and reads what is typed there.
    const reschedule = await openDialog(
      page,
      controls(page).getByRole("button", { name: "Reschedule…" }),
      "Reschedule the replay",
    );
    await expect(reschedule.getByLabel(`New time (${LA})`)).toHaveValue(inLosAngeles(due));
    await reschedule.getByLabel(`New time (${LA})`).fill("2027-01-15T09:00");
    await expect(reschedule.getByText(`Due 2027-01-15 09:00 ${LA}`)).toBeVisible();
    await reschedule.getByLabel("Reason (required)").fill("after the customer's morning");
    await reschedule.getByRole("button", { name: "Reschedule", exact: true }).click();
    await expect(
      page.getByRole("status").filter({ hasText: `Rescheduled: due 2027-01-15 09:00:00 ${LA}.` }),
    ).toBeVisible();
    // 09:00 in Los Angeles in January is 17:00 UTC (PST, UTC-8).
    expect((await readRecord(page, id)).replays[0]!.runAt).toBe("2027-01-15T17:00:00.000Z");

    // Kept with the account: after a reload, and on pages rendered by the server.
    await page.reload();
    await expect(page.getByRole("combobox", { name: "Show times in" })).toHaveValue(LA);
    await expect(controls(page)).toContainText(`Due 2027-01-15 09:00:00 ${LA}`);
    await page.goto("/audit");
    await expect(page.getByRole("columnheader", { name: `Time (${LA})` })).toBeVisible();
    await expect(page.getByLabel(`From (${LA}, inclusive)`)).toBeVisible();

    // Back to UTC: the same instant, named in UTC.
    await page.goto(`/reviews/${id}`);
    await page.getByRole("combobox", { name: "Show times in" }).selectOption("UTC");
    await expect(controls(page)).toContainText("Due 2027-01-15 17:00:00 UTC");
  });
});
