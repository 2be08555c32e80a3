import { expect, invoiceReminder, openDialog, test, uniqueTag } from "./records";

// A single record gets what a bulk operation gets: the contract's verdict before the person
// confirms, and a journal that says what it knows and where from.

test("a gap whose predecessors are missing: the verdict says it would be held again, before the replay", async ({
  page,
  loginAs,
  report,
}) => {
  await loginAs("owner");
  const tag = uniqueTag();
  const id = await report({
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: `find messages 1–3 of invoice-${tag}`,
    message: invoiceReminder(tag, { sequence: 4 }),
  });
  await page.goto(`/reviews/${id}`);
  const actions = page.getByRole("region", { name: "Actions" });
  await expect(actions).toContainText(
    "If replayed now: would-hold-gap Would be held again: a predecessor is still missing",
  );
  // Replay is there, but not the main button: it looks like the note's, an ordinary button.
  const replay = actions.getByRole("button", { name: "Replay", exact: true });
  const ordinary = await actions.getByRole("button", { name: "Add a note" }).getAttribute("class");
  await expect(replay).toHaveAttribute("class", ordinary!);
  const dialog = await openDialog(page, replay, "Replay");
  await expect(dialog).toContainText("Would be held again: a predecessor is still missing");
});

test("an effect-result-unknown record reported over HTTP: the journal says where the knowledge is", async ({
  page,
  loginAs,
  report,
}) => {
  await loginAs("support");
  const tag = uniqueTag();
  const message = invoiceReminder(tag, { sequence: 1 });
  const id = await report({
    category: "effect-result-unknown",
    reason: "effect-result-unknown",
    requiredCheck: `ask the provider whether effect ${message.effectKey} was sent`,
    source: { transport: "http", consumer: "python-worker" },
    message,
  });
  await page.goto(`/reviews/${id}`);
  const journal = page.getByRole("region", { name: "Effect journal" });
  await expect(journal).toContainText(
    `No entry for ${message.effectKey} in this console's journal; the reporting worker (python-worker) keeps its own.`,
  );
  await expect(journal).toContainText("This does not tell whether the effect was sent");
  await expect(page.getByText(/never started/)).toHaveCount(0);
});
