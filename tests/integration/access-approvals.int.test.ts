import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PUT as setPolicyRoute } from "@/app/api/v1/approval-policies/route";
import { POST as approveRoute } from "@/app/api/v1/approvals/[approvalId]/approve/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { POST as disableRoute } from "@/app/api/v1/people/[userId]/disable/route";
import { POST as roleRoute } from "@/app/api/v1/people/[userId]/role/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { POST as issueTokenRoute } from "@/app/api/v1/tokens/route";
import { verifyDecisionLog } from "@/lib/audit";
import { signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// Approvals run on the requester's authority as it is when they are approved, and four eyes
// compare people (docs/decisions/0037-one-access-module.md).

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

type Caller = { token: string } | { cookie: string };
const auth = (caller: Caller) => ("token" in caller ? { token: caller.token } : { headers: { cookie: caller.cookie } });
const tag = () => randomBytes(4).toString("hex");

async function domain(label: string) {
  const name = `${label}-${tag()}`;
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${name}.*`, name]);
  return { name, kind: `${name}.thing` };
}

let consumer: string | undefined;
async function record(kind: string, reason = "invalid-payload") {
  consumer ??= await tokenFor("consumer");
  const t = tag();
  const message = { id: `msg-${t}`, kind, effectKey: `fx-${t}`, sequenceKey: `seq-${t}`, sequence: 4, payload: { t } };
  const created = await call(report, {
    token: consumer,
    body: { category: "manual-review", reason, requiredCheck: "look at it", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, effectKey: message.effectKey };
}

let admin: string | undefined;
async function policy(body: Record<string, unknown>) {
  admin ??= await tokenFor("admin");
  const res = await call(setPolicyRoute, { token: admin, body: { reason: "four eyes", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const cancel = (caller: Caller, id: string, expectedVersion = 1) =>
  call(act, {
    ...auth(caller),
    params: { id },
    body: { action: "cancel", expectedVersion, reason: "customer withdrew", checkDone: true },
  });
const approve = (caller: Caller, approvalId: string) =>
  call(approveRoute, { ...auth(caller), params: { approvalId }, body: { reason: "looked at it too" } });

async function scopedPerson(role: "owner" | "support", domainName: string) {
  const person = await signedIn(role, `${role}-${domainName}`);
  await sql(`DELETE FROM role_grants WHERE user_id = $1`, [person.id]);
  await sql(`INSERT INTO role_grants (user_id, role, domain, created_by) VALUES ($1, $2, $3, 'test')`, [
    person.id,
    role,
    domainName,
  ]);
  return person;
}

const statusOf = async (approvalId: string) =>
  (await sql(`SELECT status, problem FROM approval_requests WHERE id = $1`, [approvalId]))[0];
const recordStatus = async (id: string) =>
  (await sql(`SELECT status::text AS status FROM review_records WHERE id = $1`, [id]))[0].status;

describe("an approval runs with the requester's authority as it is when approved", () => {
  it("an approved operation is frozen within the requester's current domains, not every domain", async () => {
    const payments = await domain("payments");
    const billing = await domain("billing");
    await policy({ decision: "operation", domain: payments.name, minRecords: 2 });
    const reason = `incident-${tag()}`;
    const mine = [
      await record(payments.kind, reason),
      await record(payments.kind, reason),
      await record(payments.kind, reason),
    ];
    const theirs = [await record(billing.kind, reason), await record(billing.kind, reason)];
    const requester = await scopedPerson("owner", payments.name);
    const second = await scopedPerson("owner", payments.name);

    const held = await call(createOperationRoute, {
      ...auth(requester),
      body: { action: "note", reason: "mark the incident", selection: { type: "filter", filter: { reason } } },
    });
    expect(held.status, JSON.stringify(held.body)).toBe(202);
    expect(held.body.approval).toMatchObject({ records: 3, domain: payments.name });

    const ok = await approve(second, held.body.approval.id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const items = await sql<{ review_id: string }>(
      `SELECT review_id::text FROM bulk_operation_items WHERE operation_id = $1 ORDER BY position`,
      [ok.body.approval.operationId],
    );
    expect(items.map((i) => i.review_id).sort()).toEqual(mine.map((r) => r.id).sort());
    expect(items.map((i) => i.review_id)).not.toContain(theirs[0]!.id);
    const [op] = await sql(`SELECT total, domains FROM bulk_operations WHERE id = $1`, [ok.body.approval.operationId]);
    expect(op).toEqual({ total: 3, domains: [payments.name] });
  });

  it("a disabled requester's pending requests are withdrawn and logged; approving one runs nothing", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const r = await record(payments.kind);
    const requester = await signedIn("owner", "req");
    const second = await signedIn("owner", "second");
    const held = await cancel(requester, r.id);
    expect(held.status).toBe(202);
    const approvalId = held.body.approval.id as string;

    admin ??= await tokenFor("admin");
    const disabled = await call(disableRoute, {
      token: admin,
      params: { userId: requester.id },
      body: { reason: "left the company" },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(await statusOf(approvalId)).toMatchObject({
      status: "withdrawn",
      problem: expect.stringMatching(/disabled/),
    });
    const [entry] = await sql(
      `SELECT actor, reason, details FROM decision_log WHERE action = 'approval.withdrawn' AND details->>'approvalId' = $1`,
      [approvalId],
    );
    expect(entry.actor).toBe("system:approvals");
    expect(entry.reason).toMatch(/left the company/);

    const res = await approve(second, approvalId);
    expect(res.status).toBe(409);
    expect(await recordStatus(r.id)).toBe("open");
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("a demoted requester's request is withdrawn: by the role change, and at approval for a grant lost elsewhere", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const requester = await signedIn("owner", "req");
    const second = await signedIn("owner", "second");

    const first = await record(payments.kind);
    const heldFirst = await cancel(requester, first.id);
    expect(heldFirst.status).toBe(202);
    admin ??= await tokenFor("admin");
    const demoted = await call(roleRoute, {
      token: admin,
      params: { userId: requester.id },
      body: { role: "auditor", reason: "moved to audit" },
    });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect((await statusOf(heldFirst.body.approval.id)).status).toBe("withdrawn");

    // A grant that goes without passing through the console's change paths (as single sign-on
    // replaces grants at sign-in): the approval itself finds the requester may no longer ask.
    const other = await signedIn("owner", "req2");
    const second2 = await record(payments.kind);
    const heldSecond = await cancel(other, second2.id);
    expect(heldSecond.status).toBe(202);
    await sql(`UPDATE role_grants SET role = 'auditor' WHERE user_id = $1`, [other.id]);
    const res = await approve(second, heldSecond.body.approval.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("approval-withdrawn");
    expect(await statusOf(heldSecond.body.approval.id)).toMatchObject({ status: "withdrawn" });
    expect(await recordStatus(second2.id)).toBe("open");
    const actions = await sql(
      `SELECT action FROM decision_log WHERE review_id = $1 AND action LIKE 'approval.%' ORDER BY seq`,
      [second2.id],
    );
    expect(actions.map((a) => a.action)).toEqual(["approval.requested", "approval.withdrawn"]);
  });
});

describe("four eyes compare people", () => {
  it("a person may not approve what they filed with their own API token", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const person = await signedIn("owner", "both");
    // An owner who also manages tokens issues themselves an owner token.
    await sql(`INSERT INTO role_grants (user_id, role, domain, created_by) VALUES ($1, 'admin', NULL, 'test')`, [
      person.id,
    ]);
    const issued = await call(issueTokenRoute, {
      ...auth(person),
      body: { name: `mine-${tag()}`, role: "owner", expiresInDays: null, reason: "my script" },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const r = await record(payments.kind);
    const held = await cancel({ token: issued.body.secret }, r.id);
    expect(held.status).toBe(202);

    const own = await approve(person, held.body.approval.id);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe("own-request");
    expect(await recordStatus(r.id)).toBe("open");
    const other = await signedIn("owner", "other");
    expect((await approve(other, held.body.approval.id)).status).toBe(200);
    expect(await recordStatus(r.id)).toBe("cancelled");
  });
});

describe("records in no domain need a global approver", () => {
  it("a scoped approver may not approve an operation that includes records in no domain", async () => {
    const payments = await domain("payments");
    await policy({ decision: "operation", domain: payments.name, minRecords: 0 });
    const requester = await signedIn("owner", "req");
    const ids = [(await record(payments.kind)).id, (await record(`nodomain-${tag()}.thing`)).id];
    const held = await call(createOperationRoute, {
      ...auth(requester),
      body: { action: "note", reason: "mark them", selection: { type: "ids", ids } },
    });
    expect(held.status, JSON.stringify(held.body)).toBe(202);

    const scoped = await scopedPerson("owner", payments.name);
    const refused = await approve(scoped, held.body.approval.id);
    expect(refused.status).toBe(403);
    expect((await statusOf(held.body.approval.id)).status).toBe("pending");
    const global = await signedIn("owner", "global");
    const ok = await approve(global, held.body.approval.id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});
