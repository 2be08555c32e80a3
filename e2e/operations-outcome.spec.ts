import type { Page } from "@playwright/test";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// What became of an aborted operation's records, end to end in Chromium: the
// operation is started from the list's "New operation" button by filter (the count shows before
// creating, the canary proposes more than 0), its canary's replays end applied and held again,
// one is never claimed, and an abort leaves the rest never sent. The bar, the list and the API
// then say so, never a full green bar. The replays are claimed through the consumer API with a
// limit, so one of them stays unclaimed; this spec's worker has no other due replays (it makes
// none elsewhere), which the test checks rather than assumes.

const RECORDS = 10;
const CANARY = 4;

function operationIdOf(page: Page): string {
  const match = /\/operations\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname);
  expect(match, `an operation page: ${page.url()}`).not.toBeNull();
  return match![1]!;
}

test("an operation aborted after its canary shows applied, held again, withdrawn and never sent, adding up", async ({
  page,
  loginAs,
  report,
  request,
  server,
  consumer,
}) => {
  const tag = uniqueTag();
  const reason = `outcome-${tag}`;
  for (let i = 0; i < RECORDS; i += 1) {
    await report({
      category: "manual-review",
      reason,
      requiredCheck: `replay after the fix (${tag}-${i})`,
      source: redisSource(`${tag}${i}`),
      message: invoiceReminder(`${tag}-${i}`),
    });
  }
  await loginAs("owner");

  // The list's own entry: no dead end without a selection, the count before creating.
  await page.goto("/operations");
  await page.getByRole("link", { name: "New operation" }).click();
  await expect(page).toHaveURL(/\/operations\/new$/);
  const choose = page.getByRole("form", { name: "Choose records by filter" });
  await choose.getByRole("button", { name: "Use this filter" }).click();
  await expect(choose.getByText("a status alone selects too much")).toBeVisible();
  await choose.getByLabel("Reason").fill(reason);
  await choose.getByRole("button", { name: "Use this filter" }).click();
  await expect(page.getByTestId("selection-count")).toHaveText(`${RECORDS} records match now`);
  await expect(page.getByLabel("Canary size")).toHaveValue("10");
  await page.getByLabel("Reason (required)").fill("Replay after the fix; stop if the canary looks wrong.");
  await page.getByLabel("Canary size").fill(String(CANARY));
  await page.getByRole("button", { name: "Create the operation" }).click();
  await expect(page).toHaveURL(/\/operations\/[0-9a-f-]{36}$/);
  const id = operationIdOf(page);

  const controls = page.getByRole("region", { name: "Controls" });
  await controls.getByRole("button", { name: "Dry run", exact: true }).click();
  await expect(
    page.getByRole("region", { name: "Dry run" }).getByRole("row").filter({ hasText: "would-apply" }),
  ).toContainText(String(RECORDS));
  await controls.getByRole("button", { name: "Confirm and start…" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm and start" });
  await confirm.getByRole("checkbox", { name: "I reviewed these numbers" }).check();
  await confirm.getByRole("button", { name: "Confirm and start", exact: true }).click();
  await expect(page.getByRole("status", { name: "Operation state" })).toContainText("awaiting-continue", {
    timeout: 20_000,
  });

  // Three of the canary's four replays are claimed: two applied, one held again; one waits unclaimed.
  const items = await page.request.get(`/api/v1/operations/${id}/items?state=dispatched`);
  const canary = ((await items.json()) as { items: { reviewId: string }[] }).items.map((i) => i.reviewId);
  expect(canary).toHaveLength(CANARY);
  const claim = await request.post(`${server.baseURL}/api/v1/replays/claim`, {
    data: { consumer: consumer.name, limit: 3 },
    headers: { authorization: `Bearer ${consumer.token}` },
  });
  expect(claim.status(), await claim.text()).toBe(200);
  const claimed = ((await claim.json()) as { items: { replayId: string; reviewId: string }[] }).items;
  expect(claimed, "only this operation's replays are due").toHaveLength(3);
  for (const c of claimed) expect(canary).toContain(c.reviewId);
  for (const [index, c] of claimed.entries()) {
    const outcome = await request.post(`${server.baseURL}/api/v1/replays/${c.replayId}/outcome`, {
      data:
        index < 2
          ? { outcome: "applied" }
          : { outcome: "routed", reason: "sequence-gap", requiredCheck: "find the missing predecessor" },
      headers: { authorization: `Bearer ${consumer.token}` },
    });
    expect(outcome.status(), await outcome.text()).toBe(200);
  }

  // Abort: the unclaimed replay is withdrawn, the six not dispatched are never sent.
  await controls.getByRole("button", { name: "Abort…" }).click();
  const dialog = page.getByRole("dialog", { name: "Abort the operation" });
  await dialog.getByLabel("Reason (required)").fill("The canary held one again; stopping here.");
  await dialog.getByRole("button", { name: "Abort the operation", exact: true }).click();
  await expect(page.getByRole("status", { name: "Operation state" })).toContainText("aborted");

  const expected = "2 applied · 1 held again · 1 withdrawn · 6 never sent";
  const progress = page.getByRole("region", { name: "Progress" });
  const bar = progress.getByRole("progressbar", { name: "Records with an outcome" });
  await expect(bar).toHaveAttribute("aria-valuetext", `${expected}, of ${RECORDS}`);
  await expect(bar).toHaveAttribute("aria-valuenow", "4");
  await expect(progress.getByTestId("operation-outcome")).toHaveText(`${expected} of ${RECORDS} records`);
  // The green part is the applied share only, not the whole bar.
  const widths = await bar.evaluate((el) => {
    const total = el.clientWidth;
    return [...el.children].map((c) => Math.round((c.getBoundingClientRect().width / total) * 100));
  });
  expect(widths).toEqual([20, 10, 10]);
  const parts = progress.getByRole("definition");
  await expect(parts).toHaveText(["2", "1", "1", "0", "6", "0"]);

  const api = (await (await page.request.get(`/api/v1/operations/${id}`)).json()) as {
    total: number;
    progress: { outcome: Record<string, number> };
  };
  expect(api.progress.outcome).toEqual({
    applied: 2,
    heldAgain: 1,
    withdrawn: 1,
    skipped: 0,
    neverSent: 6,
    waiting: 0,
  });
  expect(Object.values(api.progress.outcome).reduce((a, b) => a + b, 0)).toBe(api.total);

  // The list says the same, not "10 / 10".
  await page.goto("/operations");
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: new RegExp(id.slice(0, 8)) }) });
  await expect(row).toContainText("aborted");
  await expect(row).toContainText(expected);
  await expect(row).not.toContainText(`${RECORDS} / ${RECORDS}`);
});
