import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { type Category, expect, type ReportInput, test } from "./records";

// Screenshots at 1280x720 (the config's viewport) of the queue, one record of each category, a
// replay's verdict, the decision log, an operation, the overview and a waiting approval, saved
// under e2e/screenshots/ (git-ignored). With UPDATE_README_SCREENSHOT set, the README's are also
// copied to docs/screenshot-*.png. Not a visual comparison: a picture of what
// the console looks like with a realistic day's queue, refreshed by every run.

const shots = path.join(import.meta.dirname, "screenshots");
const readmeShot = path.join(import.meta.dirname, "..", "docs", "screenshot-queue.png");
const readmeOperationShot = path.join(import.meta.dirname, "..", "docs", "screenshot-operation.png");
const readmeOverviewShot = path.join(import.meta.dirname, "..", "docs", "screenshot-overview.png");
const readmeRecordShot = path.join(import.meta.dirname, "..", "docs", "screenshot-record.png");
const readmeVerdictShot = path.join(import.meta.dirname, "..", "docs", "screenshot-verdict.png");
const readmeApprovalsShot = path.join(import.meta.dirname, "..", "docs", "screenshot-approvals.png");

interface Seed {
  category: Category;
  reason: string;
  kind: string;
  /** Minutes since the record was first seen. */
  age: number;
  attempts?: number;
  lastError?: string;
  check: (keys: Keys) => string;
  payload: (n: number) => Record<string, unknown>;
  sequence?: number;
  /** The message lacks its effectKey (an `invalid-contract` record). */
  noEffectKey?: boolean;
}

interface Keys {
  id: string;
  effectKey: string;
  sequenceKey: string;
  n: number;
}

const KINDS: Record<string, { prefix: string; object: string; effect: (n: number, seq: number) => string }> = {
  "invoice.reminder": { prefix: "inv", object: "invoice", effect: (n) => `invoice-${n}:reminder` },
  "card.charge": { prefix: "chg", object: "order", effect: (n, seq) => `charge-${n}-${seq}` },
  "email.send": { prefix: "eml", object: "mailbox", effect: (n, seq) => `email-${n}-${seq}` },
  "access.grant": { prefix: "acc", object: "user", effect: (n) => `grant-${n}:project-${n % 97}` },
};

// Oldest first: reported in this order, so the queue (newest first) shows them reversed.
const SEEDS: Seed[] = [
  {
    category: "effect-result-unknown",
    reason: "effect-result-unknown",
    kind: "card.charge",
    age: 3 * 24 * 60 + 40,
    lastError: "ETIMEDOUT: payments provider did not answer within 15000 ms",
    check: (k) => `ask the provider whether charge ${k.effectKey} was made (idempotency key ${k.effectKey})`,
    payload: (n) => ({ schema: "2023-01", orderId: `order-${n}`, amountCents: 4999, currency: "EUR" }),
  },
  {
    category: "manual-review",
    reason: "unsupported-schema",
    kind: "invoice.reminder",
    age: 2 * 24 * 60 + 310,
    check: () => "check payload schema 2019-07 of kind invoice.reminder: supported versions are 2021-03",
    payload: (n) => ({ schema: "2019-07", invoice: n }),
  },
  {
    category: "sequence-gap",
    reason: "sequence-gap",
    kind: "access.grant",
    age: 26 * 60,
    sequence: 5,
    check: (k) => `find message 4 of ${k.sequenceKey}`,
    payload: (n) => ({ schema: "v2", userId: `user-${n}`, project: `project-${n % 97}`, role: "editor" }),
  },
  {
    category: "manual-review",
    reason: "retry-limit",
    kind: "email.send",
    age: 19 * 60,
    attempts: 2,
    lastError: "dependency-not-ready: template welcome-v3 is not published",
    check: (k) => `decide whether message ${k.id} is still wanted: dependency-not-ready after 2 attempts`,
    payload: (n) => ({ schema: "2022-10", to: `customer${n}@example.com`, template: "welcome-v3" }),
  },
  {
    category: "manual-review",
    reason: "invalid-contract",
    kind: "access.grant",
    age: 7 * 60 + 12,
    noEffectKey: true,
    check: (k) => `supply effectKey (a non-empty string) in the envelope of message ${k.id}`,
    payload: (n) => ({ schema: "v2", userId: `user-${n}`, project: "billing", role: "viewer" }),
  },
  {
    category: "manual-review",
    reason: "provider-rejected",
    kind: "email.send",
    age: 5 * 60 + 3,
    lastError: "422 Unprocessable Entity: recipient address rejected by the mail provider",
    check: (k) => `check the recipient of message ${k.id}: the provider rejected it`,
    payload: (n) => ({ schema: "2022-10", to: `customer${n}@example.invalid`, template: "receipt" }),
  },
  {
    category: "effect-result-unknown",
    reason: "effect-result-unknown",
    kind: "invoice.reminder",
    age: 4 * 60 + 41,
    lastError: "ECONNRESET: connection reset by mail-api after the request was sent",
    check: (k) => `ask the provider whether reminder ${k.n} was sent (idempotency key ${k.effectKey})`,
    payload: (n) => ({ schema: "2021-03", invoiceId: String(n) }),
  },
  {
    category: "manual-review",
    reason: "stale-or-conflicting",
    kind: "card.charge",
    age: 3 * 60 + 55,
    sequence: 2,
    check: (k) => `compare sequence 2 of ${k.sequenceKey} with the applied sequence 3`,
    payload: (n) => ({ schema: "2023-01", orderId: `order-${n}`, amountCents: 1250, currency: "EUR" }),
  },
  {
    category: "sequence-gap",
    reason: "sequence-gap",
    kind: "invoice.reminder",
    age: 2 * 60 + 30,
    sequence: 12,
    check: (k) => `find messages 10–11 of ${k.sequenceKey}`,
    payload: (n) => ({ schema: "2021-03", invoiceId: String(n) }),
  },
  {
    category: "manual-review",
    reason: "invalid-payload",
    kind: "invoice.reminder",
    age: 98,
    check: (k) => `correct payload.invoiceId of message ${k.id} (invoice.reminder schema 2021-03)`,
    payload: (n) => ({ schema: "2021-03", invoiceId: n }),
  },
  {
    category: "manual-review",
    reason: "retry-limit",
    kind: "card.charge",
    age: 64,
    attempts: 2,
    lastError: "dependency-not-ready: fraud check still pending for the order",
    check: (k) => `decide whether charge ${k.effectKey} is still wanted: dependency-not-ready after 2 attempts`,
    payload: (n) => ({ schema: "2023-01", orderId: `order-${n}`, amountCents: 18900, currency: "EUR" }),
  },
  {
    category: "effect-result-unknown",
    reason: "effect-result-unknown",
    kind: "access.grant",
    age: 41,
    lastError: "ETIMEDOUT: directory service did not answer within 5000 ms",
    check: (k) => `ask the provider whether grant ${k.effectKey} was made (idempotency key ${k.effectKey})`,
    payload: (n) => ({ schema: "v2", userId: `user-${n}`, project: `project-${n % 97}`, role: "admin" }),
  },
  {
    category: "sequence-gap",
    reason: "sequence-gap",
    kind: "email.send",
    age: 22,
    sequence: 4,
    check: (k) => `find message 3 of ${k.sequenceKey}`,
    payload: (n) => ({ schema: "2022-10", to: `customer${n}@example.com`, template: "invoice-due" }),
  },
  {
    category: "manual-review",
    reason: "invalid-payload",
    kind: "email.send",
    age: 9,
    check: (k) => `correct payload.to of message ${k.id} (email.send schema 2022-10)`,
    payload: () => ({ schema: "2022-10", to: "", template: "receipt" }),
  },
  {
    category: "manual-review",
    reason: "unsupported-schema",
    kind: "card.charge",
    age: 2,
    check: () => "check payload schema 2024-05 of kind card.charge: supported versions are 2023-01",
    payload: (n) => ({ schema: "2024-05", orderId: `order-${n}`, amount: { cents: 700, currency: "EUR" } }),
  },
];

/** Waits until what a person would see is there: content, counts, fonts, no pointer hover. */
async function settle(page: Page): Promise<void> {
  await page.mouse.move(0, 719);
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

async function shoot(page: Page, name: string): Promise<string> {
  await settle(page);
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

test("screenshots of the queue, a record of each category and the decision log", async ({
  page,
  loginAs,
  anotherPerson,
  report,
  sql,
}) => {
  await mkdir(shots, { recursive: true });
  // Business numbers that look real and differ from run to run (a worker's database is shared).
  const base = 40_000 + Math.floor(Math.random() * 50_000);
  const reported: { seed: Seed; id: string; keys: Keys }[] = [];
  for (const [index, seed] of SEEDS.entries()) {
    const kind = KINDS[seed.kind]!;
    const n = base + index * 7;
    const sequence = seed.sequence ?? 1;
    const keys: Keys = {
      id: `msg-${kind.prefix}-${n}-${sequence}`,
      effectKey: kind.effect(n, sequence),
      sequenceKey: `${kind.object}-${n}`,
      n,
    };
    if (seed.category === "sequence-gap" || seed.reason === "stale-or-conflicting") {
      const last = seed.reason === "stale-or-conflicting" ? 3 : sequence - (sequence > 5 ? 3 : 2);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, $2)`, [keys.sequenceKey, last]);
    }
    const message: Record<string, unknown> = {
      id: keys.id,
      kind: seed.kind,
      effectKey: keys.effectKey,
      sequenceKey: keys.sequenceKey,
      sequence,
      payload: seed.payload(n),
    };
    if (seed.noEffectKey) delete message.effectKey;
    if (seed.category === "effect-result-unknown") {
      // What the consumer left behind: the journal entry whose provider answer was lost.
      await sql(
        `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, started_at, updated_at)
         VALUES ($1, 'unknown', $2, $3, $4, $5, now() - make_interval(mins => $6), now() - make_interval(mins => $6))`,
        [keys.effectKey, keys.id, seed.kind, keys.sequenceKey, sequence, seed.age],
      );
    }
    const input: ReportInput = {
      category: seed.category,
      reason: seed.reason,
      requiredCheck: seed.check(keys),
      attempts: seed.attempts ?? 1,
      source: {
        transport: "redis-streams",
        queue: seed.kind.split(".")[0]!,
        consumer: `worker-${(index % 3) + 1}`,
        transportId: `${1764480000000 + index * 1000}-0`,
      },
      message,
    };
    if (seed.lastError) input.lastError = seed.lastError;
    const id = await report(input);
    reported.push({ seed, id, keys });
  }
  // Spread the records over the last days, as a real queue is: ages rise with the row.
  for (const { seed, id } of reported) {
    await sql(
      `UPDATE review_records SET first_seen_at = now() - make_interval(mins => $2),
              last_seen_at = now() - make_interval(mins => $2) / 2, updated_at = now() - make_interval(mins => $2) / 2
        WHERE id = $1::uuid`,
      [id, seed.age],
    );
  }
  const pick = (category: Category, kind: string) =>
    reported.find((r) => r.seed.category === category && r.seed.kind === kind)!;

  const owner = await loginAs("owner");

  // The queue.
  await page.goto("/reviews");
  const newest = reported.at(-1)!;
  await expect(page.getByRole("link", { name: newest.keys.id })).toBeVisible();
  await expect(page.getByText(/\d+ records in total/)).toBeVisible();
  const queueShot = await shoot(page, "queue");
  // The README's picture changes only when asked for, so a test run leaves the tree clean.
  if (process.env.UPDATE_README_SCREENSHOT) await copyFile(queueShot, readmeShot);

  // One record of each category, as its owner sees it.
  const records: [string, { id: string }][] = [
    ["record-manual-review", pick("manual-review", "invoice.reminder")],
    ["record-sequence-gap", pick("sequence-gap", "invoice.reminder")],
    ["record-effect-result-unknown", pick("effect-result-unknown", "invoice.reminder")],
  ];
  for (const [name, { id }] of records) {
    await page.goto(`/reviews/${id}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByRole("region", { name: "Actions" })).toBeVisible();
    const shot = await shoot(page, name);
    if (process.env.UPDATE_README_SCREENSHOT && name === "record-sequence-gap") await copyFile(shot, readmeRecordShot);
  }

  // The contract's verdict on a replay, shown before anyone presses anything.
  const retried = reported.find((r) => r.seed.reason === "retry-limit" && r.seed.kind === "card.charge")!;
  await page.goto(`/reviews/${retried.id}`);
  const actions = page.getByRole("region", { name: "Actions" });
  await expect(actions).toContainText("If replayed now: would-apply Would apply");
  await actions.scrollIntoViewIfNeeded();
  const verdictShot = await shoot(page, "record-verdict");
  if (process.env.UPDATE_README_SCREENSHOT) await copyFile(verdictShot, readmeVerdictShot);

  // A few decisions, so the log shows what a working day writes into it.
  const act = async (id: string, body: Record<string, unknown>) => {
    const status = await page.evaluate(
      async ({ id, body }) =>
        (
          await fetch(`/api/v1/reviews/${id}/actions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).status,
      { id, body },
    );
    expect(status, `${String(body.action)} on ${id}`).toBe(200);
  };
  const gap = pick("sequence-gap", "invoice.reminder");
  await act(gap.id, {
    action: "note",
    expectedVersion: 1,
    reason: "Asked the billing team whether reminders 10 and 11 were ever produced.",
  });
  const stale = pick("manual-review", "card.charge");
  await act(stale.id, {
    action: "cancel",
    expectedVersion: 1,
    checkDone: true,
    reason: "Superseded by sequence 3, which was applied; this charge must not run.",
  });
  const unknown = pick("effect-result-unknown", "access.grant");
  await act(unknown.id, {
    action: "confirm-applied",
    expectedVersion: 1,
    checkDone: true,
    providerRef: `dir-audit-${unknown.keys.n}`,
    reason: "The directory's audit log shows the grant at 08:02.",
  });

  await page.goto("/audit");
  await expect(page.getByRole("heading", { level: 1, name: "Decision log" })).toBeVisible();
  await expect(
    page
      .getByRole("row")
      .filter({ hasText: "review.confirm-applied" })
      .filter({ hasText: `user:${owner.email}` }),
  ).toBeVisible();
  await expect(page.getByRole("region", { name: "Hash chain verification" })).toContainText("Chain intact:");
  await shoot(page, "audit");

  // A bulk replay of the held records, stopped after its canary: dry run, progress, controls.
  const post = (path: string, body: unknown) =>
    page.evaluate(
      async ({ path, body }) => {
        const response = await fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Record<string, any> };
      },
      { path, body },
    );
  const held = reported.filter((r) => r.seed.category !== "effect-result-unknown" && r.id !== stale.id);
  const created = await post("/api/v1/operations", {
    action: "replay",
    reason: "Incident 2291: the ledger is back; replay what it held, two first.",
    selection: { type: "ids", ids: held.map((r) => r.id) },
    ratePerSecond: 5,
    canarySize: 2,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const operationId = created.body.id as string;
  const dry = await post(`/api/v1/operations/${operationId}/dry-run`, {});
  expect(dry.status).toBe(200);
  const confirmed = await post(`/api/v1/operations/${operationId}/confirm`, {
    expectedVersion: dry.body.version,
    dryRunAt: dry.body.dryRun.at,
    checkDone: true,
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  await page.goto(`/operations/${operationId}`);
  await expect(page.getByRole("status", { name: "Operation state" })).toContainText(/canary|continue/i, {
    timeout: 15_000,
  });
  const operationShot = await shoot(page, "operation");
  if (process.env.UPDATE_README_SCREENSHOT) await copyFile(operationShot, readmeOperationShot);

  // The overview, the owners' landing page, over the same day (its chart drawn).
  await page.goto("/overview");
  await expect(page.getByRole("region", { name: "Arrivals" }).locator("canvas").first()).toBeVisible();
  const overviewShot = await shoot(page, "overview");
  if (process.env.UPDATE_README_SCREENSHOT) await copyFile(overviewShot, readmeOverviewShot);

  // An owner's cancel held by the payments domain's cancel policy, as another owner finds it on
  // /approvals: the request with what it would cancel. Last, so no decision above waits.
  await sql(`INSERT INTO domains (name, created_by) VALUES ('payments', 'e2e') ON CONFLICT DO NOTHING`);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ('card.refund', 'payments') ON CONFLICT DO NOTHING`);
  await sql(
    `INSERT INTO approval_policies (domain, decision, updated_by) VALUES ('payments', 'cancel', 'e2e')
     ON CONFLICT DO NOTHING`,
  );
  const refund = {
    id: `msg-rfd-${base}-1`,
    kind: "card.refund",
    effectKey: `refund-${base}-1`,
    sequenceKey: `order-${base}`,
    sequence: 1,
    payload: { schema: "2023-01", orderId: `order-${base}`, amountCents: 4999, currency: "EUR" },
  };
  const refundId = await report({
    category: "manual-review",
    reason: "provider-rejected",
    requiredCheck: `check with the customer whether refund ${refund.effectKey} is still wanted`,
    lastError: "409 Conflict: the payments provider refused a refund above the captured amount",
    message: refund,
  });
  const cancelRequest = await post(`/api/v1/reviews/${refundId}/actions`, {
    action: "cancel",
    expectedVersion: 1,
    checkDone: true,
    reason: "The customer withdrew the refund request by phone; ticket 5512.",
  });
  expect(cancelRequest.status, JSON.stringify(cancelRequest.body)).toBe(202);
  const { page: approver } = await anotherPerson("owner");
  await approver.goto("/approvals");
  const card = approver.getByTestId("approval").filter({ hasText: refundId });
  await expect(card).toContainText(`Asked by user:${owner.email}`);
  await expect(card).toContainText(`Effect key${refund.effectKey}`);
  await expect(card.getByRole("button", { name: "Approve" })).toBeVisible();
  const approvalsShot = await shoot(approver, "approvals");
  if (process.env.UPDATE_README_SCREENSHOT) await copyFile(approvalsShot, readmeApprovalsShot);
});
