import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PUT as setPolicyRoute } from "@/app/api/v1/approval-policies/route";
import { POST as approveRoute } from "@/app/api/v1/approvals/[approvalId]/approve/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { POST as confirmRoute } from "@/app/api/v1/operations/[operationId]/confirm/route";
import { POST as dryRunRoute } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { POST as disableRoute } from "@/app/api/v1/people/[userId]/disable/route";
import { POST as roleRoute } from "@/app/api/v1/people/[userId]/role/route";
import { POST as claimRoute } from "@/app/api/v1/replays/claim/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detailRoute } from "@/app/api/v1/reviews/[id]/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import type { Role } from "@/lib/access/client";
import { createApiToken } from "@/lib/auth";
import { dispatchStep } from "@/lib/actions";
import { signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

/*
 * One authority, generated from one table (docs/decisions/0037-one-access-module.md): every
 * identity below takes every path below, each on data of its own, and the answer must be the
 * table's. The direct routes are covered route by route in authorization-matrix.int.test.ts;
 * this table is about the second paths that reach the same records: an approval that runs
 * later, a bulk operation at its freeze and per item, claims.
 *
 * Domains: `payments` (the scoped identities' domain; a cancel policy, and an operation policy
 * above 2 records) and `billing` (another team's).
 */

const database = setupTestDatabase();
beforeAll(() => {
  vi.stubEnv("TRUSTED_PROXIES", "127.0.0.1");
});
afterAll(() => {
  vi.unstubAllEnvs();
});
vi.setConfig({ testTimeout: 120_000 });
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const tag = () => randomBytes(4).toString("hex");

type Caller = { token: string } | { headers: { cookie: string } };
interface Identity {
  caller: Caller;
  /** The demoted requester: asks first, then loses the owner role (auditor). */
  demote?: () => Promise<void>;
}

const IDENTITIES = [
  "global person",
  "scoped person",
  "scoped token",
  "consumer",
  "disabled person",
  "demoted requester",
] as const;
type IdentityName = (typeof IDENTITIES)[number];

const PATHS = [
  "route: read another domain's record",
  "route: note a record of payments",
  "approval run later: cancel of a payments record",
  "approval run later: note operation over payments and billing",
  "operation freeze: one-record cancel under a cancel policy",
  "operation items: replay over a record whose cancel waits",
  "claims: claim a replay",
] as const;
type PathName = (typeof PATHS)[number];

/** The one table: what each identity gets on each path. */
const EXPECTED: Record<PathName, Record<IdentityName, string>> = {
  "route: read another domain's record": {
    "global person": "200",
    "scoped person": "404",
    "scoped token": "404",
    consumer: "403",
    "disabled person": "401",
    // A role change ends the person's sessions: they sign in again as what they are now.
    "demoted requester": "401",
  },
  "route: note a record of payments": {
    "global person": "200",
    "scoped person": "200",
    "scoped token": "200",
    consumer: "403",
    "disabled person": "401",
    "demoted requester": "401",
  },
  "approval run later: cancel of a payments record": {
    "global person": "approved: cancelled",
    "scoped person": "approved: cancelled",
    "scoped token": "approved: cancelled",
    consumer: "asked: 403",
    "disabled person": "asked: 401",
    // Withdrawn by the role change itself, before anyone could approve it.
    "demoted requester": "409 already-decided (withdrawn): open",
  },
  "approval run later: note operation over payments and billing": {
    "global person": "approved: 5 records",
    "scoped person": "approved: 3 records",
    "scoped token": "approved: 3 records",
    consumer: "asked: 403",
    "disabled person": "asked: 401",
    "demoted requester": "409 already-decided (withdrawn): no operation",
  },
  "operation freeze: one-record cancel under a cancel policy": {
    "global person": "202",
    "scoped person": "202",
    "scoped token": "202",
    consumer: "403",
    "disabled person": "401",
    "demoted requester": "401",
  },
  "operation items: replay over a record whose cancel waits": {
    "global person": "waiting: skipped approval-pending, free: dispatched",
    "scoped person": "waiting: skipped approval-pending, free: dispatched",
    "scoped token": "waiting: skipped approval-pending, free: dispatched",
    consumer: "403",
    "disabled person": "401",
    "demoted requester": "401",
  },
  "claims: claim a replay": {
    "global person": "403",
    "scoped person": "403",
    "scoped token": "403",
    consumer: "200",
    "disabled person": "401",
    "demoted requester": "401",
  },
};

let payments = "";
let billing = "";
let admin = "";
let reporter = "";

beforeAll(async () => {
  payments = `payments-${tag()}`;
  billing = `billing-${tag()}`;
  for (const name of [payments, billing]) {
    await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
    await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${name}.*`, name]);
  }
  admin = await tokenFor("admin");
  reporter = await tokenFor("consumer");
  for (const body of [
    { decision: "cancel", domain: payments },
    { decision: "operation", domain: payments, minRecords: 2 },
  ]) {
    const res = await call(setPolicyRoute, { token: admin, body: { reason: "four eyes", ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});

const cookie = (person: { cookie: string }): Caller => ({ headers: { cookie: person.cookie } });

async function scopedToken(role: Role, domain: string) {
  return (await createApiToken(`matrix-${role}-${tag()}`, role, "system:test", { domain })).token;
}

const MAKE: Record<IdentityName, () => Promise<Identity>> = {
  "global person": async () => ({ caller: cookie(await signedIn("owner", "global")) }),
  "scoped person": async () => {
    const person = await signedIn("owner", "scoped");
    await sql(`UPDATE role_grants SET domain = $2 WHERE user_id = $1`, [person.id, payments]);
    return { caller: cookie(person) };
  },
  "scoped token": async () => ({ caller: { token: await scopedToken("owner", payments) } }),
  consumer: async () => ({ caller: { token: await scopedToken("consumer", payments) } }),
  "disabled person": async () => {
    const person = await signedIn("owner", "disabled");
    const res = await call(disableRoute, { token: admin, params: { userId: person.id }, body: { reason: "left" } });
    expect(res.status).toBe(200);
    return { caller: cookie(person) };
  },
  "demoted requester": async () => {
    const person = await signedIn("owner", "demoted");
    return {
      caller: cookie(person),
      demote: async () => {
        const res = await call(roleRoute, {
          token: admin,
          params: { userId: person.id },
          body: { role: "auditor", reason: "moved to audit" },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      },
    };
  },
};

let serial = 0;
async function record(domain: string, reason = "invalid-payload") {
  serial += 1;
  const t = `${serial}-${tag()}`;
  const res = await call(report, {
    token: reporter,
    body: {
      category: "manual-review",
      reason,
      requiredCheck: "look",
      attempts: 1,
      message: { id: `m-${t}`, kind: `${domain}.thing`, effectKey: `fx-${t}`, payload: {} },
    },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const statusOf = async (id: string) =>
  (await sql(`SELECT status::text AS status FROM review_records WHERE id = $1`, [id]))[0].status as string;

const requestStatus = async (approvalId: string) =>
  (await sql(`SELECT status FROM approval_requests WHERE id = $1`, [approvalId]))[0].status as string;

/** A second person who may approve anything: the approval itself is never what is tested. */
async function approveAsSecond(approvalId: string) {
  const second = await signedIn("owner", "second");
  return call(approveRoute, { ...cookie(second), params: { approvalId }, body: { reason: "looked too" } });
}

async function runOperation(caller: Caller, operationId: string) {
  const dry = await call(dryRunRoute, { ...caller, params: { operationId }, body: {} });
  expect(dry.status, JSON.stringify(dry.body)).toBe(200);
  const confirmed = await call(confirmRoute, {
    ...caller,
    params: { operationId },
    body: { expectedVersion: dry.body.version, dryRunAt: dry.body.dryRun.at, checkDone: true },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  for (let i = 0; i < 20 && (await dispatchStep(operationId)).type !== "idle"; i++);
}

/** What the identity gets on the path, in the table's words. */
const TAKE: Record<PathName, (who: Identity) => Promise<string>> = {
  "route: read another domain's record": async (who) => {
    const id = await record(billing);
    await who.demote?.();
    return String((await call(detailRoute, { ...who.caller, params: { id } })).status);
  },
  "route: note a record of payments": async (who) => {
    const id = await record(payments);
    await who.demote?.();
    const res = await call(act, {
      ...who.caller,
      params: { id },
      body: { action: "note", expectedVersion: 1, reason: "a note" },
    });
    return String(res.status);
  },
  "approval run later: cancel of a payments record": async (who) => {
    const id = await record(payments);
    const asked = await call(act, {
      ...who.caller,
      params: { id },
      body: { action: "cancel", expectedVersion: 1, reason: "withdrawn", checkDone: true },
    });
    if (asked.status !== 202) return `asked: ${asked.status}`;
    await who.demote?.();
    const approved = await approveAsSecond(asked.body.approval.id);
    const status = await statusOf(id);
    if (approved.status === 200) return `approved: ${status}`;
    return `${approved.status} ${approved.body.error.code} (${await requestStatus(asked.body.approval.id)}): ${status}`;
  },
  "approval run later: note operation over payments and billing": async (who) => {
    const reason = `incident-${tag()}`;
    for (const domain of [payments, payments, payments, billing, billing]) await record(domain, reason);
    const asked = await call(createOperationRoute, {
      ...who.caller,
      body: { action: "note", reason: "mark them", selection: { type: "filter", filter: { reason } } },
    });
    if (asked.status !== 202) return `asked: ${asked.status}`;
    await who.demote?.();
    const approved = await approveAsSecond(asked.body.approval.id);
    if (approved.status !== 200) {
      const [n] = await sql(
        `SELECT count(*)::int AS n FROM bulk_operations WHERE reason = 'mark them' AND
        selection->'filter'->>'reason' = $1`,
        [reason],
      );
      const request = await requestStatus(asked.body.approval.id);
      return `${approved.status} ${approved.body.error.code} (${request}): ${n.n === 0 ? "no operation" : "an operation"}`;
    }
    const [op] = await sql(`SELECT total FROM bulk_operations WHERE id = $1`, [approved.body.approval.operationId]);
    return `approved: ${op.total} records`;
  },
  "operation freeze: one-record cancel under a cancel policy": async (who) => {
    const id = await record(payments);
    await who.demote?.();
    const res = await call(createOperationRoute, {
      ...who.caller,
      body: { action: "cancel", reason: "clean up", selection: { type: "ids", ids: [id] } },
    });
    return String(res.status);
  },
  "operation items: replay over a record whose cancel waits": async (who) => {
    const [waiting, free] = [await record(payments), await record(payments)];
    const other = await signedIn("owner", "other");
    const held = await call(act, {
      ...cookie(other),
      params: { id: waiting },
      body: { action: "cancel", expectedVersion: 1, reason: "withdrawn", checkDone: true },
    });
    expect(held.status).toBe(202);
    await who.demote?.();
    const created = await call(createOperationRoute, {
      ...who.caller,
      body: { action: "replay", reason: "again", selection: { type: "ids", ids: [waiting, free] } },
    });
    if (created.status !== 201) return String(created.status);
    await runOperation(who.caller, created.body.id);
    const items = await sql<{ review_id: string; state: string; detail: string | null }>(
      `SELECT review_id::text, state::text, detail FROM bulk_operation_items WHERE operation_id = $1`,
      [created.body.id],
    );
    const of = (id: string) => {
      const item = items.find((i) => i.review_id === id)!;
      return item.detail ? `${item.state} ${item.detail.split(":")[0]}` : item.state;
    };
    return `waiting: ${of(waiting)}, free: ${of(free)}`;
  },
  "claims: claim a replay": async (who) => {
    await who.demote?.();
    return String((await call(claimRoute, { ...who.caller, body: { consumer: "matrix", limit: 1 } })).status);
  },
};

describe("one authority: every identity on every second path", () => {
  for (const path of PATHS) {
    it(path, async () => {
      const got: Partial<Record<IdentityName, string>> = {};
      for (const name of IDENTITIES) got[name] = await TAKE[path](await MAKE[name]());
      expect(got).toEqual(EXPECTED[path]);
    });
  }
});
