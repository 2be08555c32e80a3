import type { Locator, Page } from "@playwright/test";
import { expect, invoiceReminder, redisSource, type ReportInput, test, uniqueTag } from "./records";

// Every way a person resolves a review record (docs/contract.md, "Actions, precisely"), one scenario
// each, in Chromium against `next start`. Each scenario reports its own records through the API,
// under keys no other test uses, and checks the outcome both on the page and through the API.

interface RecordState {
  status: string;
  version: number;
  messageId: string | null;
  effectKey: string | null;
  journal: { state: string; providerRef: string | null } | null;
  sequenceState: { lastSequence: number } | null;
  replays: { id: string; state: string; revisionNumber: number }[];
  revisions: { number: number; envelope: Record<string, unknown> }[];
  history: { action: string; actor: string; reason: string | null; toStatus: string | null }[];
}

/** The record as the API serves it to the signed-in person of `page`. */
async function readRecord(page: Page, id: string): Promise<RecordState> {
  const response = await page.request.get(`/api/v1/reviews/${id}`);
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as RecordState;
}

/** Opens an action's dialog from the record page's action panel. */
async function openAction(page: Page, label: string): Promise<Locator> {
  await page.getByRole("region", { name: "Actions" }).getByRole("button", { name: label, exact: true }).click();
  const dialog = page.getByRole("dialog", { name: label });
  await expect(dialog).toBeVisible();
  return dialog;
}

/**
 * Writes the reason and ticks the action's check, as every action but a note asks: the record's
 * required check, or for a cancel its own (the effect must not happen).
 */
async function giveReason(dialog: Locator, reason: string): Promise<void> {
  await dialog.getByLabel("Reason (required)").fill(reason);
  await dialog.getByRole("checkbox", { name: /I have done the required check|I have checked that the effect/ }).check();
}

function region(page: Page, name: string | RegExp): Locator {
  return page.getByRole("region", { name });
}

/** The history entry of one action, as the record page's timeline shows it. */
function historyEntry(page: Page, action: string): Locator {
  return region(page, /^History/)
    .getByRole("listitem")
    .filter({ has: page.getByText(action, { exact: true }) });
}

test("an owner corrects an invalid payload, reviews the diff, and its replay keeps id and effectKey", async ({
  page,
  loginAs,
  report,
  claimReplaysOf,
}) => {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 1, payload: { schema: "2021-03", invoiceId: 417 } });
  const id = await report({
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: `correct payload.invoiceId of message ${message.id} (invoice.reminder schema 2021-03)`,
    lastError: "invalid-payload: payload.invoiceId must be a non-empty string",
    source: redisSource(tag),
    message,
  });
  const owner = await loginAs("owner");
  await page.goto(`/reviews/${id}`);
  await expect(page.getByRole("heading", { level: 1, name: "invalid-payload" })).toBeVisible();

  const dialog = await openAction(page, "Correct and replay");
  // The envelope is shown as kept: a correction cannot touch id or effectKey.
  const kept = dialog.getByRole("definition").filter({ hasText: message.effectKey });
  await expect(kept).toBeVisible();

  const editor = dialog.getByRole("textbox", { name: "Corrected payload (JSON)" });
  await expect(editor).toBeVisible();
  await expect(editor).toContainText('"invoiceId": 417');

  // The check follows the text as it is typed: first a syntax error...
  await editor.fill('{ "schema": "2021-03", "invoiceId": ');
  await expect(dialog.getByText(/^JSON syntax error:/)).toBeVisible();
  // ...then a value that parses but is still invalid: the check names the path, nothing is sent.
  await editor.fill('{ "schema": "2021-03", "invoiceId": "" }');
  await expect(editor).toContainText('"invoiceId": ""');
  await expect(dialog.getByText(/^JSON syntax error:/)).toHaveCount(0);
  const issue = dialog.getByRole("listitem").filter({ has: page.getByText("payload.invoiceId", { exact: true }) });
  await expect(issue).toContainText("must be a non-empty string");
  await expect(dialog.getByText("Does not match the schema of invoice.reminder")).toBeVisible();
  await expect(editor).toHaveAttribute("aria-invalid", "true");

  // The correction: the number as a string.
  await editor.fill('{ "schema": "2021-03", "invoiceId": "417" }');
  await expect(dialog.getByText(/Valid JSON and valid against the schema of invoice\.reminder/)).toBeVisible();
  await expect(issue).toHaveCount(0);
  await dialog.getByRole("button", { name: "Review the changes" }).click();

  // The diff against the message as received, before saving.
  await expect(dialog.getByRole("heading", { name: "Review revision 1 before saving" })).toBeVisible();
  const diff = dialog.getByRole("table", { name: "Revision 1 against the message as received" });
  await expect(diff.getByRole("row")).toHaveCount(2); // header + exactly one change
  const change = diff.getByRole("row").filter({ hasText: "payload.invoiceId" });
  await expect(change.getByRole("cell")).toHaveText(["~ changed", "payload.invoiceId", "417", '"417"']);

  await giveReason(dialog, "The shop sent the invoice number as a number; it is the string 417.");
  await dialog.getByRole("button", { name: "Save the revision and schedule its replay" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Correct and replay: done" })).toContainText(
    "The record is now replay-scheduled (version 2)",
  );
  const revisions = region(page, "Payload revisions (1)");
  await expect(revisions.getByRole("heading", { name: /^Revision 1 by user:/ })).toContainText(owner.email);
  await expect(revisions.getByRole("row").filter({ hasText: "payload.invoiceId" })).toContainText('"417"');
  await expect(region(page, "Replays (1)")).toContainText("scheduled");
  await expect(historyEntry(page, "correct-and-replay")).toContainText(`by user:${owner.email}`);

  // The message as received stays as it was.
  await expect(region(page, "Message as received").getByLabel("Message, exact text")).toContainText('"invoiceId":417');

  // A consumer claims the replay: the same id and effectKey, the corrected payload.
  const claimed = await claimReplaysOf(id);
  expect(claimed.revisionNumber).toBe(1);
  expect(claimed.envelope).toEqual({ ...message, payload: { schema: "2021-03", invoiceId: "417" } });
  expect(claimed.envelope.id).toBe(message.id);
  expect(claimed.envelope.effectKey).toBe(message.effectKey);

  const record = await readRecord(page, id);
  expect(record).toMatchObject({ status: "replaying", messageId: message.id, effectKey: message.effectKey });
  expect(record.revisions).toEqual([
    expect.objectContaining({ number: 1, envelope: { ...message, payload: { schema: "2021-03", invoiceId: "417" } } }),
  ]);
});

test("an owner cancels a record: the journal marks the effect cancelled", async ({ page, loginAs, report }) => {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 1 });
  const id = await report({
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: `decide whether reminder ${tag} is still wanted: dependency-not-ready after 2 attempts`,
    attempts: 2,
    lastError: "dependency-not-ready: customer account is being migrated",
    source: redisSource(tag),
    message,
  });
  const owner = await loginAs("owner");
  await page.goto(`/reviews/${id}`);
  await expect(region(page, "Effect journal")).toContainText(`No entry for ${message.effectKey}`);

  const dialog = await openAction(page, "Cancel the effect");
  await expect(dialog).toContainText(`The effect journal marks ${message.effectKey} cancelled`);
  // Message 1 is next in its sequence: cancelling it consumes the slot.
  await expect(dialog).toContainText(`the sequence advances to 1`);
  await giveReason(dialog, "The customer paid by bank transfer; the reminder is no longer wanted.");
  await dialog.getByRole("button", { name: "Cancel the effect" }).click();
  await expect(dialog).toBeHidden();

  await expect(page.getByRole("status").filter({ hasText: "Cancel the effect: done" })).toContainText(
    "The record is now cancelled (version 2)",
  );
  const journal = region(page, "Effect journal");
  await expect(journal).toContainText("cancelled");
  await expect(journal).toContainText("any later delivery with this key is suppressed");
  await expect(historyEntry(page, "cancel")).toContainText(`by user:${owner.email}`);
  await expect(historyEntry(page, "cancel")).toContainText("no longer wanted");
  // Only notes are offered on a cancelled record.
  await expect(region(page, "Actions")).toContainText("This record is cancelled: only notes can be added.");
  await expect(region(page, "Actions").getByRole("button", { name: "Cancel the effect" })).toHaveCount(0);

  const record = await readRecord(page, id);
  expect(record.status).toBe("cancelled");
  expect(record.journal).toMatchObject({ state: "cancelled" });
  expect(record.sequenceState).toMatchObject({ lastSequence: 1 });
});

test.describe("support confirms an effect-result-unknown record with the provider", () => {
  /** An unknown effect as the consumer leaves it: the journal row `unknown`, the review record. */
  async function unknownEffect(
    report: (input: ReportInput) => Promise<string>,
    sql: (text: string, values?: unknown[]) => Promise<unknown[]>,
  ) {
    const tag = uniqueTag();
    const message = invoiceReminder(tag, { sequence: 1 });
    await sql(
      `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence)
       VALUES ($1, 'unknown', $2, $3, $4, $5)`,
      [message.effectKey, message.id, message.kind, message.sequenceKey, message.sequence],
    );
    const id = await report({
      category: "effect-result-unknown",
      reason: "effect-result-unknown",
      requiredCheck: `ask the provider whether reminder ${tag} was sent (idempotency key ${message.effectKey})`,
      lastError: "ETIMEDOUT: provider mail-api did not answer within 10000 ms",
      source: redisSource(tag),
      message,
    });
    return { id, message };
  }

  test("as applied, with the provider's reference: resolved, journal applied", async ({
    page,
    loginAs,
    report,
    sql,
  }) => {
    const { id, message } = await unknownEffect(report, sql);
    const support = await loginAs("support");
    await page.goto(`/reviews/${id}`);
    await expect(region(page, "Effect journal")).toContainText("unknown");
    // Replaying before the provider's side is known could send it twice: not offered.
    await expect(region(page, "Actions").getByRole("button", { name: "Replay" })).toHaveCount(0);

    const dialog = await openAction(page, "Provider confirms: applied");
    const providerRef = `mail-api-msg-${uniqueTag()}`;
    await dialog.getByLabel("Provider's reference (required)").fill(providerRef);
    await giveReason(dialog, "The provider's log shows the reminder was delivered at 09:14.");
    await dialog.getByRole("button", { name: "Confirm: applied" }).click();
    await expect(dialog).toBeHidden();

    await expect(page.getByRole("status").filter({ hasText: "Provider confirms: applied: done" })).toContainText(
      "The record is now resolved",
    );
    const journal = region(page, "Effect journal");
    await expect(journal).toContainText("applied");
    await expect(journal.getByRole("definition").filter({ hasText: providerRef })).toBeVisible();
    await expect(historyEntry(page, "confirm-applied")).toContainText(`by user:${support.email}`);
    await expect(region(page, "Replays (0)")).toContainText("No replay has been scheduled.");

    const record = await readRecord(page, id);
    expect(record.status).toBe("resolved");
    expect(record.journal).toMatchObject({ state: "applied", providerRef });
    expect(record.sequenceState).toMatchObject({ lastSequence: message.sequence });
    expect(record.replays).toEqual([]);
  });

  test("as not applied: a replay is scheduled with the same effectKey", async ({
    page,
    loginAs,
    report,
    sql,
    claimReplaysOf,
  }) => {
    const { id, message } = await unknownEffect(report, sql);
    await loginAs("support");
    await page.goto(`/reviews/${id}`);

    const dialog = await openAction(page, "Provider confirms: not applied");
    await dialog.getByLabel("Provider's reference (optional)").fill("mail-api lookup 88213: no such message");
    await giveReason(dialog, "The provider has no message with this idempotency key.");
    await dialog.getByRole("button", { name: "Confirm: not applied, and schedule a replay" }).click();
    await expect(dialog).toBeHidden();

    await expect(page.getByRole("status").filter({ hasText: "Provider confirms: not applied: done" })).toContainText(
      "The record is now replay-scheduled",
    );
    await expect(region(page, "Effect journal")).toContainText(`No entry for ${message.effectKey}`);
    await expect(region(page, "Replays (1)")).toContainText("scheduled");

    const record = await readRecord(page, id);
    expect(record.status).toBe("replay-scheduled");
    expect(record.journal).toBeNull();
    expect(record.replays).toEqual([expect.objectContaining({ state: "scheduled", revisionNumber: 0 })]);

    // The replay carries the message as received: same id, same effectKey (the provider's
    // idempotency key), so the provider can still deduplicate it.
    const claimed = await claimReplaysOf(id);
    expect(claimed.envelope).toEqual(message);
  });
});

test("an owner skips a gap: the dialog names the range declared lost, then the sequence moves", async ({
  page,
  loginAs,
  report,
  sql,
}) => {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 12 });
  // Messages 1–9 of the key were applied; 10 and 11 never came.
  await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 9)`, [message.sequenceKey]);
  const id = await report({
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: `find messages 10–11 of ${message.sequenceKey}`,
    source: redisSource(tag),
    message,
  });
  const owner = await loginAs("owner");
  await page.goto(`/reviews/${id}`);
  const sequence = region(page, "Sequence");
  await expect(sequence).toContainText(`Halted at 10: ${message.sequenceKey} cannot apply 12 until 10–11 are applied`);

  const dialog = await openAction(page, "Skip the gap");
  await expect(dialog.getByText(`10–11 of ${message.sequenceKey}`, { exact: true })).toBeVisible();
  await expect(dialog).toContainText(`Declares messages 10–11 of ${message.sequenceKey} lost (2 numbers)`);
  await expect(dialog).toContainText("the last applied number becomes 11, and a replay of this record (12)");
  await giveReason(dialog, "Messages 10 and 11 were lost in the broker outage of 2 March.");
  await dialog.getByRole("button", { name: "Skip the gap and schedule the replay" }).click();
  await expect(dialog).toBeHidden();

  await expect(page.getByRole("status").filter({ hasText: "Skip the gap: done" })).toContainText(
    "The record is now replay-scheduled",
  );
  await expect(sequence).toContainText(
    `Next in line: ${message.sequenceKey} waits for exactly this message (12). Nothing is missing before it.`,
  );
  await expect(region(page, "Replays (1)")).toContainText("scheduled");
  await expect(historyEntry(page, "skip-gap")).toContainText(`by user:${owner.email}`);

  const record = await readRecord(page, id);
  expect(record.status).toBe("replay-scheduled");
  expect(record.sequenceState).toMatchObject({ lastSequence: 11 });
  expect(record.replays).toEqual([expect.objectContaining({ state: "scheduled" })]);
  const [row] = await sql<{ last: string }>(
    `SELECT last_sequence::text AS last FROM sequence_state WHERE sequence_key = $1`,
    [message.sequenceKey],
  );
  expect(row?.last).toBe("11");

  // The range declared lost is in the decision log.
  const log = await page.request.get(`/api/v1/audit?reviewId=${id}&action=review.skip-gap`);
  expect(log.status()).toBe(200);
  const { items } = (await log.json()) as { items: { actor: string; details: Record<string, unknown> }[] };
  expect(items).toEqual([
    expect.objectContaining({
      actor: `user:${owner.email}`,
      details: expect.objectContaining({ skipped: { from: 10, to: 11 } }),
    }),
  ]);
});

test("two owners act on the same record at once: one succeeds, the other sees the conflict", async ({
  page,
  loginAs,
  anotherPerson,
  report,
}) => {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 1 });
  const id = await report({
    category: "manual-review",
    reason: "stale-or-conflicting",
    requiredCheck: `compare sequence 1 of ${message.sequenceKey} with the applied sequence 0`,
    source: redisSource(tag),
    message,
  });
  const first = await loginAs("owner");
  const second = await anotherPerson("owner");
  const other = second.page;
  const owners = [
    { page, email: first.email },
    { page: other, email: second.email },
  ];

  // Both open the record and the same action, on version 1.
  const dialogs: Locator[] = [];
  for (const { page: p, email } of owners) {
    await p.goto(`/reviews/${id}`);
    const dialog = await openAction(p, "Replay");
    await expect(dialog).toContainText("Acts on version 1.");
    await giveReason(dialog, `replaying it now (${email})`);
    dialogs.push(dialog);
  }

  // Both submit at once; the server takes one, and refuses the other's stale version.
  const answers = await Promise.all(
    owners.map(async ({ page: p }, index) => {
      // (Bounded: a page that noticed the change before sending would send nothing.)
      const answer = p.waitForResponse(
        (r) => r.request().method() === "POST" && r.url().endsWith(`/api/v1/reviews/${id}/actions`),
        { timeout: 20_000 },
      );
      await dialogs[index]!.getByRole("button", { name: "Schedule the replay" }).click();
      return (await answer).status();
    }),
  );
  expect([...answers].sort()).toEqual([200, 409]);
  const winner = answers.indexOf(200);
  const loser = 1 - winner;
  const winnerPage = owners[winner]!.page;
  const loserPage = owners[loser]!.page;

  await expect(dialogs[winner]!).toBeHidden();
  await expect(winnerPage.getByRole("status").filter({ hasText: "Replay: done" })).toContainText(
    "The record is now replay-scheduled (version 2)",
  );

  // The other person keeps the dialog, is told why, and sees the record as it now is.
  const conflict = dialogs[loser]!.getByRole("alert").filter({ hasText: /changed by someone else/i });
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText(
    "You started on version 1; the record is now at version 2, and its status moved from open to replay-scheduled.",
  );
  await expect(conflict).toContainText(`replay by user:${owners[winner]!.email}`);
  await expect(conflict).toContainText("Replay is no longer possible on the record as it is now (replay-scheduled)");
  await expect(dialogs[loser]!.getByLabel("Reason (required)")).toHaveValue(
    `replaying it now (${owners[loser]!.email})`,
  );
  await dialogs[loser]!.getByRole("button", { name: /^Close/ }).click();
  await expect(region(loserPage, "Replays (1)")).toContainText("scheduled");
  await expect(historyEntry(loserPage, "replay")).toHaveCount(1);
  await expect(historyEntry(loserPage, "replay")).toContainText(`by user:${owners[winner]!.email}`);

  const record = await readRecord(loserPage, id);
  expect(record).toMatchObject({ status: "replay-scheduled", version: 2 });
  expect(record.replays).toHaveLength(1);
  expect(record.history.filter((h) => h.action === "replay")).toHaveLength(1);
});

test("an auditor is offered no action, and the API refuses one sent by hand (logged)", async ({
  page,
  loginAs,
  report,
}) => {
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 1 });
  const id = await report({
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: `decide whether reminder ${tag} is still wanted`,
    source: redisSource(tag),
    message,
  });
  const auditor = await loginAs("auditor");
  await page.goto(`/reviews/${id}`);
  const readOnly = region(page, "Read-only");
  await expect(readOnly).toContainText("Your role (auditor) reads every record and takes no action on it.");
  await expect(region(page, "Actions")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /replay|cancel|correct|skip|confirm|note/i })).toHaveCount(0);

  // The same request the console would send, from the auditor's own session.
  const answer = await page.evaluate(async (recordId) => {
    const response = await fetch(`/api/v1/reviews/${recordId}/actions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ action: "cancel", expectedVersion: 1, reason: "just trying", checkDone: true }),
    });
    return { status: response.status, body: await response.json() };
  }, id);
  expect(answer).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });

  const record = await readRecord(page, id);
  expect(record).toMatchObject({ status: "open", version: 1 });
  expect(record.history.map((h) => h.action)).not.toContain("cancel");

  // The refusal is in the decision log, which the auditor may read.
  const actor = `user:${auditor.email}`;
  await page.goto(`/audit?actor=${encodeURIComponent(actor)}&action=authorization.refused`);
  const entry = page.getByRole("row").filter({ hasText: "authorization.refused" });
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText(actor);
  await expect(entry).toContainText("role auditor may not reviews.act");
  await entry.getByRole("button", { name: /^Show details of entry/ }).click();
  await expect(page.getByText(`"path": "/api/v1/reviews/${id}/actions"`)).toBeVisible();
});

test("markup in a message is shown as text in the record page and the queue, and runs nothing", async ({
  page,
  loginAs,
  report,
}) => {
  const tag = uniqueTag();
  const script = "<script>window.__xss=1</script>";
  const image = '<img src=x onerror="window.__xss=2">';
  const message = invoiceReminder(tag, {
    id: `msg-${tag}-${image}`,
    payload: { schema: "2021-03", invoiceId: script, note: image },
  });
  const id = await report({
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: `correct payload.invoiceId of message ${message.id}: ${script}`,
    lastError: `invalid-payload: ${image}`,
    source: redisSource(tag),
    message,
  });
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const ranNothing = async () => {
    await page.waitForLoadState("load");
    // No element was made of the markup, and neither handler ran.
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length)).toBe(0);
    expect(
      await page.evaluate(() => [...document.scripts].filter((s) => s.text.trim() === "window.__xss=1").length),
    ).toBe(0);
    expect(dialogs).toEqual([]);
  };

  await loginAs("owner");
  await page.goto(`/reviews/${id}`);
  const exact = region(page, "Message as received").getByLabel("Message, exact text");
  await expect(exact).toContainText(`"invoiceId":"${script}"`);
  await expect(exact).toContainText(`"note":"<img src=x onerror=\\"window.__xss=2\\">"`);
  await expect(page.getByText(`correct payload.invoiceId of message ${message.id}: ${script}`)).toBeVisible();
  // (The last error is shown in the header and in full further down.)
  await expect(page.getByText(`invalid-payload: ${image}`).first()).toBeVisible();
  await ranNothing();

  // Pretty-printed by the browser: still text.
  await page.getByLabel("Pretty-print").check();
  const pretty = region(page, "Message as received").getByLabel("Message, pretty-printed");
  await expect(pretty).toContainText(`"invoiceId": "${script}"`);
  // In the correction editor too.
  const dialog = await openAction(page, "Correct and replay");
  await expect(dialog.getByRole("textbox", { name: "Corrected payload (JSON)" })).toContainText(script);
  await ranNothing();

  // The queue, searched for this record: its message id and check are text as well.
  await page.goto(`/reviews?q=${tag}`);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: message.id }) });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("link", { name: message.id })).toHaveText(message.id);
  await expect(row).toContainText(`${script}`);
  await ranNothing();
});
