import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PUT as setPolicyRoute } from "@/app/api/v1/approval-policies/route";
import { POST as approveRoute } from "@/app/api/v1/approvals/[approvalId]/approve/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { POST as confirmRoute } from "@/app/api/v1/operations/[operationId]/confirm/route";
import { POST as dryRunRoute } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { dispatchStep } from "@/lib/actions";
import { signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// Four eyes hold on bulk operations too (docs/decisions/0037-one-access-module.md): a per-record
// policy of the operation's action holds the operation back at its freeze and is checked again for
// each item, and a record whose approval request waits is not acted on by anything else.

const database = setupTestDatabase();
beforeAll(() => {
  vi.stubEnv("TRUSTED_PROXIES", "127.0.0.1");
});
afterAll(() => {
  vi.unstubAllEnvs();
});
vi.setConfig({ testTimeout: 90_000 });
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

type Caller = { cookie: string };
const auth = (caller: Caller) => ({ headers: { cookie: caller.cookie } });
const tag = () => randomBytes(4).toString("hex");

async function domain(label: string) {
  const name = `${label}-${tag()}`;
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${name}.*`, name]);
  return { name, kind: `${name}.thing` };
}

let consumer: string | undefined;
async function record(kind: string) {
  consumer ??= await tokenFor("consumer");
  const t = tag();
  const message = { id: `msg-${t}`, kind, effectKey: `fx-${t}`, payload: { t } };
  const created = await call(report, {
    token: consumer,
    body: { category: "manual-review", reason: "invalid-payload", requiredCheck: "look", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

let admin: string | undefined;
async function policy(body: Record<string, unknown>) {
  admin ??= await tokenFor("admin");
  const res = await call(setPolicyRoute, { token: admin, body: { reason: "four eyes", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const cancel = (caller: Caller, id: string) =>
  call(act, {
    ...auth(caller),
    params: { id },
    body: { action: "cancel", expectedVersion: 1, reason: "customer withdrew", checkDone: true },
  });
const createOperation = (caller: Caller, action: string, ids: string[]) =>
  call(createOperationRoute, {
    ...auth(caller),
    body: { action, reason: "clean up", selection: { type: "ids", ids } },
  });

/** Dry run, confirm, and dispatch until nothing is left; the items' states and details. */
async function runOperation(caller: Caller, operationId: string) {
  const dry = await call(dryRunRoute, { ...auth(caller), params: { operationId }, body: {} });
  expect(dry.status, JSON.stringify(dry.body)).toBe(200);
  const confirmed = await call(confirmRoute, {
    ...auth(caller),
    params: { operationId },
    body: { expectedVersion: dry.body.version, dryRunAt: dry.body.dryRun.at, checkDone: true },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  for (let i = 0; i < 20; i++) {
    const step = await dispatchStep(operationId);
    if (step.type === "idle") break;
  }
  return sql<{ review_id: string; state: string; detail: string | null }>(
    `SELECT review_id::text, state::text, detail FROM bulk_operation_items WHERE operation_id = $1 ORDER BY position`,
    [operationId],
  );
}
const statusOf = async (id: string) =>
  (await sql(`SELECT status::text AS status FROM review_records WHERE id = $1`, [id]))[0].status;

describe("bulk operations and per-record policies", () => {
  it("a one-record bulk cancel under a cancel policy waits for a second person, as the direct cancel does", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const owner = await signedIn("owner", "one");
    const r = await record(payments.kind);
    const direct = await cancel(owner, r);
    expect(direct.status).toBe(202);

    const other = await record(payments.kind);
    const bulk = await createOperation(owner, "cancel", [other]);
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(202);
    expect(bulk.body.approval).toMatchObject({ decision: "operation", operationAction: "cancel", records: 1 });
    expect(await statusOf(other)).toBe("open");
  });

  it("items under a per-record policy set after the freeze are skipped unless the operation was approved", async () => {
    const payments = await domain("payments");
    const owner = await signedIn("owner", "one");
    const ids = [await record(payments.kind), await record(payments.kind)];
    const created = await createOperation(owner, "cancel", ids);
    expect(created.status).toBe(201);
    await policy({ decision: "cancel", domain: payments.name });

    const items = await runOperation(owner, created.body.id);
    expect(items.map((i) => i.state)).toEqual(["skipped", "skipped"]);
    expect(items[0]!.detail).toMatch(/^approval-required: a cancel in domain .* needs a second person's approval/);
    for (const id of ids) expect(await statusOf(id)).toBe("open");
  });

  it("an approved bulk cancel runs, except on a record whose own request waits", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const owner = await signedIn("owner", "one");
    const second = await signedIn("owner", "two");
    const [waiting, free] = [await record(payments.kind), await record(payments.kind)];
    const held = await createOperation(owner, "cancel", [waiting, free]);
    expect(held.status).toBe(202);
    const direct = await cancel(second, waiting);
    expect(direct.status).toBe(202);
    const requestId = direct.body.approval.id as string;

    const approved = await call(approveRoute, {
      ...auth(second),
      params: { approvalId: held.body.approval.id },
      body: { reason: "ok" },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const items = await runOperation(owner, approved.body.approval.operationId);
    const byRecord = new Map(items.map((i) => [i.review_id, i]));
    expect(byRecord.get(free)!.state).toBe("done");
    expect(byRecord.get(waiting)!.state).toBe("skipped");
    expect(byRecord.get(waiting)!.detail).toContain(
      `approval-pending: a cancel of this record waits for approval (${requestId})`,
    );
    expect(await statusOf(free)).toBe("cancelled");
    expect(await statusOf(waiting)).toBe("open");
  });

  it("a record with a pending request is not replayed by an operation nor by a direct replay (409 naming it)", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const owner = await signedIn("owner", "one");
    const other = await signedIn("owner", "two");
    const [waiting, free] = [await record(payments.kind), await record(payments.kind)];
    const held = await cancel(owner, waiting);
    expect(held.status).toBe(202);
    const requestId = held.body.approval.id as string;

    const direct = await call(act, {
      ...auth(other),
      params: { id: waiting },
      body: { action: "replay", expectedVersion: 1, reason: "try again", checkDone: true },
    });
    expect(direct.status).toBe(409);
    expect(direct.body.error.code).toBe("approval-pending");
    expect(direct.body.error.message).toContain(requestId);

    const replay = await createOperation(other, "replay", [waiting, free]);
    expect(replay.status).toBe(201);
    // The dry run says so before anyone confirms.
    const dry = await call(dryRunRoute, { ...auth(other), params: { operationId: replay.body.id }, body: {} });
    expect(dry.body.dryRun.counts["approval-pending"]).toBe(1);
    const items = await runOperation(other, replay.body.id);
    const byRecord = new Map(items.map((i) => [i.review_id, i]));
    expect(byRecord.get(free)!.state).toBe("dispatched");
    expect(byRecord.get(waiting)!.state).toBe("skipped");
    expect(byRecord.get(waiting)!.detail).toContain(requestId);
    expect(await statusOf(waiting)).toBe("open");
  });
});
