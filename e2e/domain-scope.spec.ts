import { expect, invoiceReminder, test, uniqueTag } from "./records";

// Domain enforcement (docs/decisions/0030-domain-enforcement.md) in Chromium: an owner whose only
// grant is in one domain sees that domain's records in the queue, its counts and the overview,
// may act on them, and finds a record of another domain "not there". The domains and the grant
// are set with SQL: their management (CLI, admin page) is ADR 0029's and tested there.

test("a payments owner sees only payments records, acts on one, and a messaging record is not found", async ({
  page,
  loginAs,
  report,
  sql,
}) => {
  const tag = uniqueTag();
  const payments = `pay-${tag}`;
  const messaging = `msg-${tag}`;
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'e2e'), ($2, 'e2e')`, [payments, messaging]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2), ($3, $4)`, [
    `pay${tag}.*`,
    payments,
    `msg${tag}.*`,
    messaging,
  ]);
  const held = (name: string, kind: string) =>
    report({
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: "look at it",
      message: { ...invoiceReminder(`${tag}-${name}`, { sequence: 1 }), kind },
    });
  const charge = await held("charge", `pay${tag}.charge`);
  const refund = await held("refund", `pay${tag}.refund`);
  const message = await held("message", `msg${tag}.send`);

  const owner = await loginAs("owner");
  await sql(
    `UPDATE role_grants SET domain = $2 WHERE user_id = (SELECT id FROM users WHERE email = $1) AND domain IS NULL`,
    [owner.email, payments],
  );

  // The queue: the two payments records, and nothing of any other domain or of none.
  await page.goto("/reviews");
  await expect(page.locator("#queue-table tbody a[data-row-link]")).toHaveCount(2);
  await expect(page.getByRole("row").filter({ hasText: `msg-${tag}-charge` })).toHaveCount(1);
  await expect(page.getByRole("row").filter({ hasText: `msg-${tag}-refund` })).toHaveCount(1);
  await expect(page.getByRole("row").filter({ hasText: `msg-${tag}-message` })).toHaveCount(0);

  // The counts and the overview cover the same two records.
  const stats = await (await page.request.get("/api/v1/reviews/stats")).json();
  expect(stats.total).toBe(2);
  const overview = await (await page.request.get("/api/v1/overview")).json();
  expect(overview.open.total).toBe(2);
  expect(overview.scope).toEqual({ domains: [payments], openInNoDomain: null });
  await page.goto("/overview");
  const waiting = page.getByRole("region", { name: "Waiting now" });
  await expect(waiting).toContainText(`in ${payments}`);
  await expect(waiting.getByRole("link", { name: "2", exact: true }).first()).toBeVisible();

  // A payments record: the owner's actions are offered, and a note goes through.
  await page.goto(`/reviews/${charge}`);
  await expect(page.getByRole("button", { name: "Replay", exact: true })).toBeVisible();
  const note = await page.request.post(`/api/v1/reviews/${charge}/actions`, {
    data: { action: "note", expectedVersion: 1, reason: "looked at it" },
  });
  expect(note.status(), await note.text()).toBe(200);
  expect((await page.request.get(`/api/v1/reviews/${refund}`)).status()).toBe(200);

  // A messaging record's address: the not-found page, and the API's plain 404.
  await page.goto(`/reviews/${message}`);
  await expect(page.getByRole("heading", { level: 1, name: "No such review record" })).toBeVisible();
  const hidden = await page.request.get(`/api/v1/reviews/${message}`);
  expect(hidden.status()).toBe(404);
  expect((await hidden.json()).error.code).toBe("not-found");
});
