import type { Page } from "@playwright/test";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// Bulk operations (docs/operations.md) in Chromium against `next start`, whose dispatcher runs in
// the server process (instrumentation.ts). Records are reported through the API under keys no
// other test uses; a consumer token claims the replays and reports their outcomes, as a consumer
// would. Each scenario checks the page and, where the page cannot say it all, the API.

interface OperationState {
  state: string;
  total: number;
  pauseReason: string | null;
  progress: { dispatched: number; outcomes: number; byState: Record<string, number> };
}

async function readOperation(page: Page, id: string): Promise<OperationState> {
  const response = await page.request.get(`/api/v1/operations/${id}`);
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as OperationState;
}

/** The records of the operation in one item state, as the API lists them. */
async function itemsIn(page: Page, id: string, state: string): Promise<string[]> {
  const response = await page.request.get(`/api/v1/operations/${id}/items?state=${state}&limit=500`);
  expect(response.status(), await response.text()).toBe(200);
  const { items } = (await response.json()) as { items: { reviewId: string }[] };
  return items.map((item) => item.reviewId);
}

function operationIdOf(page: Page): string {
  const match = /\/operations\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname);
  expect(match, `an operation page: ${page.url()}`).not.toBeNull();
  return match![1]!;
}

function stateOf(page: Page) {
  return page.getByRole("status", { name: "Operation state" });
}

function controls(page: Page) {
  return page.getByRole("region", { name: "Controls" });
}

/** Opens a control's dialog, writes the reason and submits it. */
async function control(page: Page, button: string, dialogTitle: string, submit: string, reason: string) {
  await controls(page).getByRole("button", { name: button, exact: true }).click();
  const dialog = page.getByRole("dialog", { name: dialogTitle });
  await dialog.getByLabel("Reason (required)").fill(reason);
  await dialog.getByRole("button", { name: submit, exact: true }).click();
  await expect(dialog).toBeHidden();
}

test("an owner replays a cause: form, dry run, confirm, a canary of 2 waits, Continue finishes it", async ({
  page,
  loginAs,
  report,
  replayOutcomes,
}) => {
  const tag = uniqueTag();
  const reason = `provider-outage-${tag}`;
  const ids: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    ids.push(
      await report({
        category: "manual-review",
        reason,
        requiredCheck: `replay once the mail provider is back (${tag}-${i})`,
        lastError: "ECONNRESET: mail-api closed the connection",
        source: redisSource(`${tag}${i}`),
        message: invoiceReminder(`${tag}-${i}`),
      }),
    );
  }
  const owner = await loginAs("owner");

  // The grouped view: the cause's row offers a bulk replay.
  await page.goto("/reviews?view=groups");
  const row = page.getByRole("row").filter({ hasText: reason });
  await expect(row).toContainText("5");
  await row.getByRole("link", { name: /^Replay this cause/ }).click();

  // The form says what was chosen, in words.
  await expect(page.getByRole("heading", { level: 1, name: "New bulk operation" })).toBeVisible();
  const selection = page.getByRole("region", { name: "Selection" });
  await expect(selection).toContainText("Every record of one cause");
  await expect(selection).toContainText(reason);
  await expect(selection).toContainText("ECONNRESET");
  await expect(page.getByLabel("Records per second")).toHaveValue("50");
  // Refused before sending: no reason yet.
  await page.getByRole("button", { name: "Create the operation" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Some fields need attention" })).toBeVisible();
  await expect(page.getByLabel("Reason (required)")).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Reason (required)").fill("The mail provider is back since 10:40; replay the outage.");
  await page.getByLabel("Canary size").fill("2");
  await page.getByRole("button", { name: "Create the operation" }).click();

  // The operation, planned, with its frozen selection.
  await expect(page).toHaveURL(/\/operations\/[0-9a-f-]{36}$/);
  const id = operationIdOf(page);
  await expect(page.getByRole("heading", { level: 1, name: "Replay of 5 records" })).toBeVisible();
  await expect(stateOf(page)).toContainText("planned");
  await expect(page.getByRole("region", { name: "Operation" })).toContainText(owner.email);
  await expect(controls(page).getByRole("button", { name: "Confirm and start…" })).toHaveCount(0);

  // The dry run: every record would apply; the count lists them.
  await controls(page).getByRole("button", { name: "Dry run", exact: true }).click();
  const dryRun = page.getByRole("region", { name: "Dry run" });
  const applyRow = dryRun.getByRole("row").filter({ hasText: "would-apply" });
  await expect(applyRow).toContainText("5");
  await applyRow.getByRole("button", { name: "List the records with the verdict would-apply (5)" }).click();
  const drill = dryRun.getByRole("table", { name: /Records with the dry-run verdict would-apply/ });
  await expect(drill.getByRole("link")).toHaveCount(5);
  await expect(drill.getByRole("link", { name: `msg-${tag}-0` })).toHaveAttribute("href", `/reviews/${ids[0]}`);

  // Confirm: the numbers on screen, a tick that says they were read.
  await controls(page).getByRole("button", { name: "Confirm and start…" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm and start" });
  await expect(confirm.getByRole("row").filter({ hasText: "would-apply" })).toContainText("5");
  await confirm.getByRole("button", { name: "Confirm and start", exact: true }).click();
  await expect(confirm.getByText("Tick this once you have read the numbers above.")).toBeVisible();
  await confirm.getByRole("checkbox", { name: "I reviewed these numbers" }).check();
  await confirm.getByRole("button", { name: "Confirm and start", exact: true }).click();
  await expect(confirm).toBeHidden();

  // The canary: two records are dispatched, then it waits for a person.
  await expect(stateOf(page)).toContainText("awaiting-continue", { timeout: 20_000 });
  const progress = page.getByRole("region", { name: "Progress" });
  await expect(progress).toContainText("2 dispatched");
  const canary = await itemsIn(page, id, "dispatched");
  expect(canary).toHaveLength(2);
  expect((await readOperation(page, id)).progress.byState.pending).toBe(3);

  // The canary's replays succeed; the page shows their outcomes live.
  await replayOutcomes(canary, "applied");
  await expect(progress.getByRole("list", { name: "Records by state" })).toContainText("applied2", {
    timeout: 10_000,
  });
  await expect(progress.getByRole("progressbar")).toHaveAttribute("aria-valuetext", "2 applied · 3 waiting, of 5");

  // Continue: the other three are dispatched; their outcomes complete the operation.
  await control(page, "Continue after canary…", "Continue after the canary", "Continue after canary", "Canary fine.");
  await expect(stateOf(page)).toContainText("running");
  await expect.poll(async () => (await itemsIn(page, id, "dispatched")).length, { timeout: 20_000 }).toBe(3);
  await replayOutcomes(await itemsIn(page, id, "dispatched"), "applied");
  await expect(stateOf(page)).toContainText("completed", { timeout: 20_000 });
  await expect(progress.getByRole("progressbar")).toHaveAttribute("aria-valuetext", "5 applied, of 5");
  await expect(controls(page)).toContainText("nothing more can be done");

  // The per-record outcomes and the operation's own decision-log entries.
  const outcomes = page.getByRole("region", { name: "Records and outcomes" });
  await outcomes.getByLabel("State").selectOption("applied");
  await expect(outcomes.getByRole("table").getByRole("link")).toHaveCount(5);
  const log = page.getByRole("region", { name: "Decision log" });
  for (const action of ["operation.created", "operation.confirmed", "operation.canary-reached", "operation.resumed"]) {
    await expect(log.getByRole("cell", { name: action, exact: true })).toBeVisible();
  }

  // The list shows it, and a record names the operation it belongs to.
  await page.goto("/operations");
  const listed = page.getByRole("row").filter({ has: page.getByRole("link", { name: new RegExp(id.slice(0, 8)) }) });
  await expect(listed).toContainText("completed");
  await expect(listed).toContainText("5 applied");
  await page.goto(`/reviews/${ids[0]}`);
  await expect(page.getByText("Part of operation")).toContainText("applied");
  await expect(page.getByRole("link", { name: new RegExp(id.slice(0, 8)) })).toHaveAttribute(
    "href",
    `/operations/${id}`,
  );
});

test("an owner ticks records in the queue, starts a slow replay, pauses it and aborts it", async ({
  page,
  loginAs,
  report,
}) => {
  const tag = uniqueTag();
  const reason = `slow-${tag}`;
  for (let i = 0; i < 4; i += 1) {
    await report({
      category: "manual-review",
      reason,
      requiredCheck: `replay reminder ${tag}-${i}`,
      source: redisSource(`${tag}${i}`),
      message: invoiceReminder(`${tag}-${i}`),
    });
  }
  await loginAs("owner");

  // Tick every record shown for this reason: the bar offers the owner's actions.
  await page.goto(`/reviews?reason=${reason}`);
  await expect(page.getByRole("link", { name: `msg-${tag}-0` })).toBeVisible();
  const bar = page.getByRole("group", { name: "Bulk operations" });
  await expect(bar.getByRole("link", { name: "Bulk action on this filter" })).toBeVisible();
  await page.getByRole("checkbox", { name: "Select all records on this page" }).check();
  await expect(bar).toContainText("4 selected:");
  await expect(bar.getByRole("link")).toHaveText(["Replay…", "Cancel…", "Note…", "Bulk action on this filter"]);
  await bar.getByRole("link", { name: "Replay…" }).click();

  await expect(page.getByRole("region", { name: "Selection" })).toContainText("4 records chosen one by one");
  await expect(page.getByTestId("selection-count")).toHaveText("4 records match now");
  // The canary proposes more than 0, never more than the records chosen.
  await expect(page.getByLabel("Canary size")).toHaveValue("4");
  await page.getByLabel("Reason (required)").fill("Slow replay, to be stopped.");
  await page.getByLabel("Records per second").fill("0.1");
  await page.getByRole("button", { name: "Create the operation" }).click();
  await expect(page).toHaveURL(/\/operations\/[0-9a-f-]{36}$/);
  const id = operationIdOf(page);

  await controls(page).getByRole("button", { name: "Dry run", exact: true }).click();
  await expect(
    page.getByRole("region", { name: "Dry run" }).getByRole("row").filter({ hasText: "would-apply" }),
  ).toContainText("4");
  await controls(page).getByRole("button", { name: "Confirm and start…" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm and start" });
  await confirm.getByRole("checkbox", { name: "I reviewed these numbers" }).check();
  await confirm.getByRole("button", { name: "Confirm and start", exact: true }).click();
  await expect(stateOf(page)).toContainText("running");

  // Pause: one click, the reason optional (typed beside the button); the state and the reason show at once.
  await controls(page).getByLabel("Pause reason (optional)").fill("Checking the first replays before going on.");
  await controls(page).getByRole("button", { name: "Pause", exact: true }).click();
  await expect(stateOf(page)).toContainText("paused");
  await expect(page.getByRole("note", { name: "Paused" })).toContainText("Checking the first replays before going on.");
  expect((await readOperation(page, id)).state).toBe("paused");
  await expect(controls(page).getByRole("button", { name: "Resume…" })).toBeVisible();

  // Abort: nothing more is dispatched; the records not reached are marked so.
  await control(page, "Abort…", "Abort the operation", "Abort the operation", "Not needed after all.");
  await expect(stateOf(page)).toContainText("aborted");
  const aborted = await readOperation(page, id);
  expect(aborted.state).toBe("aborted");
  expect(aborted.progress.byState["not-dispatched"] ?? 0).toBeGreaterThanOrEqual(3);
  await expect(page.getByRole("list", { name: "Records by state" })).toContainText("not-dispatched");
  await expect(controls(page)).toContainText("This operation is aborted");
});

test("support may only add notes in bulk; an auditor reads operations and starts none", async ({
  page,
  loginAs,
  anotherPerson,
  report,
}) => {
  const tag = uniqueTag();
  const reason = `support-${tag}`;
  await report({
    category: "manual-review",
    reason,
    requiredCheck: `check reminder ${tag}`,
    message: invoiceReminder(tag),
  });
  await loginAs("support");
  await page.goto(`/reviews?reason=${reason}`);
  await page.getByRole("checkbox", { name: `Select record msg-${tag}` }).check();
  const bar = page.getByRole("group", { name: "Bulk operations" });
  await expect(bar.getByRole("link")).toHaveText(["Note…", "Bulk action on this filter"]);
  await page.goto("/reviews?view=groups");
  await expect(page.getByRole("link", { name: /^Replay this cause/ })).toHaveCount(0);

  const { page: auditorPage } = await anotherPerson("auditor");
  await auditorPage.goto(`/reviews?reason=${reason}`);
  await expect(auditorPage.getByRole("link", { name: `msg-${tag}` })).toBeVisible();
  await expect(auditorPage.getByRole("checkbox")).toHaveCount(0);
  await expect(auditorPage.getByRole("group", { name: "Bulk operations" })).toHaveCount(0);
  await auditorPage.goto("/operations");
  await expect(auditorPage.getByRole("heading", { level: 1, name: "Bulk operations" })).toBeVisible();
  await expect(
    auditorPage.getByRole("region", { name: "Automatic replay of ready records" }).getByRole("button"),
  ).toHaveCount(0);
});

test("a held gap whose predecessor was applied shows as ready in the queue and on its page", async ({
  page,
  loginAs,
  report,
  sql,
}) => {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 3 });
  await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 1)`, [message.sequenceKey]);
  const id = await report({
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: `find message 2 of ${message.sequenceKey}`,
    message,
  });
  await loginAs("owner");
  await page.goto(`/reviews/${id}`);
  await expect(page.getByText("Ready: predecessor applied")).toHaveCount(0);

  // Message 2 is applied meanwhile: the record is ready.
  await sql(`UPDATE sequence_state SET last_sequence = 2 WHERE sequence_key = $1`, [message.sequenceKey]);
  await page.goto(`/reviews?sequenceKey=${message.sequenceKey}`);
  await expect(page.getByRole("row").filter({ hasText: `msg-${tag}` })).toContainText("ready");
  await page.goto(`/reviews/${id}`);
  await expect(page.getByText("Ready: predecessor applied")).toBeVisible();
});

test("an owner turns automatic replay of ready records on for a kind, with a reason, and off again", async ({
  page,
  loginAs,
}) => {
  const owner = await loginAs("owner");
  await page.goto("/operations");
  const section = page.getByRole("region", { name: "Automatic replay of ready records" });
  const row = section
    .getByRole("row")
    .filter({ has: page.getByRole("cell", { name: "invoice.reminder", exact: true }) });
  const setting = row.getByRole("cell").nth(1);
  await expect(setting).toHaveText("off");

  await row.getByRole("button", { name: "Turn on automatic replay for invoice.reminder" }).click();
  const dialog = page.getByRole("dialog", { name: "Turn on automatic replay: invoice.reminder" });
  await dialog.getByRole("button", { name: "Turn on", exact: true }).click();
  await expect(dialog.getByText("Write why: it goes to the decision log.")).toBeVisible();
  await dialog.getByLabel("Reason (required)").fill("Gaps close by themselves after the migration.");
  await dialog.getByRole("button", { name: "Turn on", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(section.getByRole("status")).toHaveText("Automatic replay for invoice.reminder is on.");
  await expect(setting).toHaveText("on");
  await expect(row).toContainText(owner.email);

  await row.getByRole("button", { name: "Turn off automatic replay for invoice.reminder" }).click();
  const off = page.getByRole("dialog", { name: "Turn off automatic replay: invoice.reminder" });
  await off.getByLabel("Reason (required)").fill("Back to manual after the test.");
  await off.getByRole("button", { name: "Turn off", exact: true }).click();
  await expect(off).toBeHidden();
  await expect(setting).toHaveText("off");
});

test("an operation whose replays end held again pauses itself, and the page says why", async ({
  page,
  loginAs,
  report,
  replayOutcomes,
}) => {
  const tag = uniqueTag();
  const reason = `held-${tag}`;
  const ids: string[] = [];
  for (let i = 0; i < 6; i += 1) {
    ids.push(
      await report({
        category: "manual-review",
        reason,
        requiredCheck: `replay reminder ${tag}-${i}`,
        source: redisSource(`${tag}${i}`),
        message: invoiceReminder(`${tag}-${i}`),
      }),
    );
  }
  await loginAs("owner");
  await page.goto("/operations");
  const create = await page.request.post("/api/v1/operations", {
    data: {
      action: "replay",
      reason: "Replay after the outage; stop if they keep failing.",
      selection: { type: "filter", filter: { reason } },
      ratePerSecond: 2,
      autoPause: { threshold: 0.5, minOutcomes: 2 },
    },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(create.status(), await create.text()).toBe(201);
  const { id } = (await create.json()) as { id: string };
  await page.goto(`/operations/${id}`);
  await controls(page).getByRole("button", { name: "Dry run", exact: true }).click();
  await controls(page).getByRole("button", { name: "Confirm and start…" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm and start" });
  await confirm.getByRole("checkbox", { name: "I reviewed these numbers" }).check();
  await confirm.getByRole("button", { name: "Confirm and start", exact: true }).click();

  // The first two replays a consumer runs end held again: past 50% of at least 2 outcomes.
  await expect
    .poll(async () => (await readOperation(page, id)).progress.dispatched, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(2);
  await replayOutcomes(ids.slice(0, 2), "routed");
  await expect(stateOf(page)).toContainText("paused", { timeout: 15_000 });
  await expect(page.getByRole("note", { name: "Paused" })).toContainText(/auto-pause: 2 of 2 replays ended held again/);
  const paused = await readOperation(page, id);
  expect(paused.pauseReason).toMatch(/^auto-pause: 2 of 2 /);
  // Nothing more goes out while it is paused.
  const dispatched = paused.progress.dispatched;
  await page.waitForTimeout(1500);
  expect((await readOperation(page, id)).progress.dispatched).toBe(dispatched);
  await expect(controls(page).getByRole("button", { name: "Resume…" })).toBeVisible();
});
