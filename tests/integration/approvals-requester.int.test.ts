/**
 * The requester's side of a held bulk operation: a second identical request while the first
 * waits is a 409 naming it; the requester (and only they) may withdraw it, logged; a withdrawn
 * request can be filed again. The request shows what it would run: selection, rate, canary.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PUT as setPolicyRoute } from "@/app/api/v1/approval-policies/route";
import { POST as withdrawRoute } from "@/app/api/v1/approvals/[approvalId]/withdraw/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const tag = () => randomBytes(4).toString("hex");

async function record(kind: string, consumer: string) {
  const t = tag();
  const created = await call(report, {
    token: consumer,
    body: {
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: "look at it",
      attempts: 1,
      message: { id: `msg-${t}`, kind, effectKey: `fx-${t}`, payload: { t, schema: "2021-03" } },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

describe("a held bulk operation, from the requester's side", () => {
  it("is filed once, shows what it would run, and its requester alone withdraws it", async () => {
    const name = `payments-${tag()}`;
    await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
    await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${name}.*`, name]);
    const admin = await tokenFor("admin");
    const set = await call(setPolicyRoute, {
      token: admin,
      body: { decision: "operation", domain: name, reason: "four eyes" },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const consumer = await tokenFor("consumer");
    const ids = [await record(`${name}.charge`, consumer), await record(`${name}.charge`, consumer)];
    const requester = await tokenFor("owner");
    const body = {
      action: "note",
      reason: "mark the incident",
      selection: { type: "ids", ids },
      ratePerSecond: 5,
      canarySize: 1,
    };
    const create = (reason = body.reason) =>
      call(createOperationRoute, { token: requester, body: { ...body, reason } });

    const held = await create();
    expect(held.status, JSON.stringify(held.body)).toBe(202);
    const approvalId = held.body.approval.id as string;
    expect(held.body.approval.operationRequest).toEqual({
      selection: { type: "ids", ids },
      runAt: null,
      ratePerSecond: 5,
      canarySize: 1,
    });

    // The same operation again, even with other words: refused, naming the one that waits.
    const again = await create("retrying after the page said held");
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: "approval-pending" }, approvalId });
    expect(again.body.error.message).toContain(approvalId);
    expect(await sql(`SELECT count(*)::int AS n FROM approval_requests WHERE decision = 'operation'`)).toEqual([
      { n: 1 },
    ]);

    const withdraw = (token: string, reason = "filed by mistake") =>
      call(withdrawRoute, { token, params: { approvalId }, body: { reason } });
    const other = await withdraw(await tokenFor("owner"));
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("not-requester");
    const noReason = await call(withdrawRoute, { token: requester, params: { approvalId }, body: {} });
    expect(noReason.status).toBe(400);

    const done = await withdraw(requester);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.approval).toMatchObject({ status: "withdrawn", decidedReason: "filed by mistake" });
    const [logged] = await sql(
      `SELECT actor, reason FROM decision_log WHERE action = 'approval.withdrawn' AND details->>'approvalId' = $1`,
      [approvalId],
    );
    expect(logged).toMatchObject({ reason: "filed by mistake" });
    expect((await withdraw(requester)).status).toBe(409);
    expect(await sql(`SELECT count(*)::int AS n FROM bulk_operations`)).toEqual([{ n: 0 }]);

    // Withdrawn, it no longer waits: the same request may be filed again.
    expect((await create()).status).toBe(202);
  });
});

describe("a record's detail", () => {
  it("names the actions an approval policy would hold, before anyone asks", async () => {
    const name = `billing-${tag()}`;
    await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
    await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${name}.*`, name]);
    const id = await record(`${name}.charge`, await tokenFor("consumer"));
    const owner = await tokenFor("owner");
    const read = async () => (await call(detail, { token: owner, params: { id } })).body.approvalNeeded;
    expect(await read()).toEqual([]);
    const set = await call(setPolicyRoute, {
      token: await tokenFor("admin"),
      body: { decision: "cancel", domain: name, reason: "four eyes on cancels" },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(await read()).toEqual(["cancel"]);
  });
});
