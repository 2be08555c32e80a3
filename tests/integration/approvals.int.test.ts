import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PUT as setPolicyRoute } from "@/app/api/v1/approval-policies/route";
import { POST as removePolicyRoute } from "@/app/api/v1/approval-policies/remove/route";
import { GET as listApprovalsRoute } from "@/app/api/v1/approvals/route";
import { POST as approveRoute } from "@/app/api/v1/approvals/[approvalId]/approve/route";
import { POST as rejectRoute } from "@/app/api/v1/approvals/[approvalId]/reject/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { POST as claimRoute } from "@/app/api/v1/replays/claim/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { verifyDecisionLog } from "@/lib/audit";
import { signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();

// As if behind a proxy at 127.0.0.1 (as in auth.int.test.ts): each sign-in sends its own client
// address, so the many people here do not share one login budget.
beforeAll(() => {
  vi.stubEnv("TRUSTED_PROXIES", "127.0.0.1");
});
afterAll(() => {
  vi.unstubAllEnvs();
});
// Each test signs in several people (argon2 hashes) and the first one warms the routes up.
vi.setConfig({ testTimeout: 90_000 });
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

type Caller = { token: string } | { cookie: string };
const auth = (caller: Caller) => ("token" in caller ? { token: caller.token } : { headers: { cookie: caller.cookie } });

const tag = () => randomBytes(4).toString("hex");

/** A domain of its own with one kind prefix: `<name>.*`. */
async function domain(label: string) {
  const name = `${label}-${tag()}`;
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${name}.*`, name]);
  return { name, kind: `${name}.thing` };
}

let consumer: string | undefined;
async function record(kind: string, category = "manual-review", reason = "invalid-payload") {
  consumer ??= await tokenFor("consumer");
  const t = tag();
  const message = {
    id: `msg-${t}`,
    kind,
    effectKey: `fx-${t}`,
    sequenceKey: `seq-${t}`,
    sequence: 4,
    payload: { t, schema: "2021-03" },
  };
  const created = await call(report, {
    token: consumer,
    body: { category, reason, requiredCheck: "look at it", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, effectKey: message.effectKey };
}

let admin: string | undefined;
async function policy(body: Record<string, unknown>) {
  admin ??= await tokenFor("admin");
  const res = await call(setPolicyRoute, { token: admin, body: { reason: "four eyes", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.policy;
}

const cancel = (caller: Caller, id: string, expectedVersion = 1) =>
  call(act, {
    ...auth(caller),
    params: { id },
    body: { action: "cancel", expectedVersion, reason: "customer withdrew", checkDone: true },
  });
const approve = (caller: Caller, approvalId: string, reason = "looked at it too") =>
  call(approveRoute, { ...auth(caller), params: { approvalId }, body: { reason } });
const reject = (caller: Caller, approvalId: string, reason = "not this one") =>
  call(rejectRoute, { ...auth(caller), params: { approvalId }, body: { reason } });
const list = (caller: Caller, query = "") =>
  call(listApprovalsRoute, { ...auth(caller), path: `/api/v1/approvals${query}` });

/** A person who holds `role` only in `domainName` (their global grant removed). */
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

async function state(id: string) {
  const [row] = await sql(
    `SELECT r.status::text AS status, r.version, j.state::text AS journal,
            (SELECT count(*)::int FROM review_history h WHERE h.review_id = r.id AND h.action = 'cancel') AS cancels
       FROM review_records r LEFT JOIN effect_journal j ON j.effect_key = r.effect_key WHERE r.id = $1`,
    [id],
  );
  return row;
}

const logOf = (id: string) =>
  sql(
    `SELECT actor, action, details FROM decision_log WHERE review_id = $1 AND action <> 'authorization.refused' ORDER BY seq`,
    [id],
  );

describe("four-eyes approvals of record actions", () => {
  it("a held cancel waits, the requester may not approve it, another owner's approval runs it once with both names", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name, expiresAfterSeconds: 3600 });
    const r = await record(payments.kind);
    const [requester, second, supporter] = [
      await signedIn("owner", "req"),
      await signedIn("owner", "second"),
      await signedIn("support", "sup"),
    ];

    const held = await cancel(requester, r.id);
    expect(held.status).toBe(202);
    expect(held.body.approval).toMatchObject({
      status: "pending",
      decision: "cancel",
      domain: payments.name,
      reviewId: r.id,
      expectedVersion: 1,
      requestedBy: `user:${requester.email}`,
      canDecide: false,
    });
    const approvalId = held.body.approval.id as string;
    expect(Date.parse(held.body.approval.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    expect(await state(r.id)).toMatchObject({ status: "open", version: 1, journal: null, cancels: 0 });

    // The same decision cannot be asked twice while it waits.
    const again = await cancel(second, r.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("approval-pending");

    const own = await approve(requester, approvalId);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe("own-request");
    const bySupport = await approve(supporter, approvalId);
    expect(bySupport.status).toBe(403);
    const byToken = await approve({ token: await tokenFor("owner") }, approvalId);
    expect(byToken.status).toBe(403);
    expect(byToken.body.error.code).toBe("person-required");
    expect(await state(r.id)).toMatchObject({ status: "open", version: 1, cancels: 0 });

    const waiting = await list(second);
    expect(waiting.status).toBe(200);
    expect(waiting.body.approvals.find((a: any) => a.id === approvalId)).toMatchObject({ canDecide: true });
    expect(waiting.body.waitingForYou).toBeGreaterThanOrEqual(1);
    const mine = await list(requester, `?reviewId=${r.id}`);
    expect(mine.body.approvals).toHaveLength(1);
    expect(mine.body.approvals[0].canDecide).toBe(false);

    const ok = await approve(second, approvalId);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.approval).toMatchObject({ status: "approved", decidedBy: `user:${second.email}` });
    expect(await state(r.id)).toMatchObject({ status: "cancelled", version: 2, journal: "cancelled", cancels: 1 });

    const [history] = await sql(
      `SELECT actor, details FROM review_history WHERE review_id = $1 AND action = 'cancel'`,
      [r.id],
    );
    expect(history.actor).toBe(`user:${requester.email}`);
    expect(history.details.approval).toEqual({
      approvalId,
      requestedBy: `user:${requester.email}`,
      approvedBy: `user:${second.email}`,
    });
    const log = await logOf(r.id);
    expect(log.map((l) => l.action)).toEqual([
      "review.reported",
      "approval.requested",
      "review.cancel",
      "approval.approved",
    ]);
    expect(log[1].details).toMatchObject({
      approvalId,
      domain: payments.name,
      decision: { action: "cancel", reviewId: r.id },
      requestedBy: `user:${requester.email}`,
      expiresAt: held.body.approval.expiresAt,
    });
    expect(log[2].details.approval.approvedBy).toBe(`user:${second.email}`);
    expect(log[3]).toMatchObject({
      actor: `user:${second.email}`,
      details: { approvalId, decidedBy: `user:${second.email}`, requestedBy: `user:${requester.email}` },
    });

    const twice = await approve(second, approvalId);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("already-decided");
    expect(await state(r.id)).toMatchObject({ version: 2, cancels: 1 });
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("a scheduled replay is not claimed while a cancel of its record waits, and is once the request is rejected", async () => {
    const payments = await domain("payments");
    const r = await record(payments.kind);
    const owner = await signedIn("owner", "replays");
    const scheduled = await call(act, {
      ...auth(owner),
      params: { id: r.id },
      body: { action: "replay", expectedVersion: 1, reason: "fixed upstream", checkDone: true },
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    await policy({ decision: "cancel", domain: payments.name, expiresAfterSeconds: 3600 });
    const held = await cancel(owner, r.id, scheduled.body.version);
    expect(held.status, JSON.stringify(held.body)).toBe(202);
    const claim = async () => {
      const res = await call(claimRoute, {
        token: consumer!,
        body: { consumer: `worker-${tag()}`, kinds: [payments.kind], limit: 10 },
      });
      expect(res.status).toBe(200);
      return (res.body.items as { reviewId: string }[]).map((i) => i.reviewId);
    };

    expect(await claim(), "claimed while the cancel waited").toEqual([]);
    expect(await state(r.id)).toMatchObject({ status: "replay-scheduled" });

    const no = await reject(await signedIn("owner", "second-look"), held.body.approval.id);
    expect(no.status, JSON.stringify(no.body)).toBe(200);
    expect(await claim()).toEqual([r.id]);
  });

  it("two approvals at the same moment run the decision once", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const r = await record(payments.kind);
    const requester = await signedIn("owner", "req");
    const [a, b] = [await signedIn("owner", "a"), await signedIn("owner", "b")];
    const held = await cancel(requester, r.id);
    expect(held.status).toBe(202);
    const answers = await Promise.all([approve(a, held.body.approval.id), approve(b, held.body.approval.id)]);
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409]);
    expect(await state(r.id)).toMatchObject({ status: "cancelled", version: 2, cancels: 1 });
    const approvals = (await logOf(r.id)).filter((l) => l.action === "approval.approved");
    expect(approvals).toHaveLength(1);
  });

  it("a rejection changes nothing but the request", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const r = await record(payments.kind);
    const requester = await signedIn("owner", "req");
    const other = await signedIn("owner", "other");
    const held = await cancel(requester, r.id);
    const own = await reject(requester, held.body.approval.id);
    expect(own.status).toBe(403);
    const res = await reject(other, held.body.approval.id, "the customer called back");
    expect(res.status).toBe(200);
    expect(res.body.approval).toMatchObject({ status: "rejected", decidedReason: "the customer called back" });
    expect(await state(r.id)).toMatchObject({ status: "open", version: 1, journal: null, cancels: 0 });
    expect((await logOf(r.id)).map((l) => l.action)).toEqual([
      "review.reported",
      "approval.requested",
      "approval.rejected",
    ]);
    expect((await approve(other, held.body.approval.id)).status).toBe(409);
    // Answered, the record may be asked about again.
    expect((await cancel(requester, r.id)).status).toBe(202);
  });

  it("a request past its expiry is expired: by the list, or when someone tries to approve it", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name, expiresAfterSeconds: 60 });
    const requester = await signedIn("owner", "req");
    const other = await signedIn("owner", "other");
    const [r1, r2] = [await record(payments.kind), await record(payments.kind)];
    const [h1, h2] = [await cancel(requester, r1.id), await cancel(requester, r2.id)];
    await sql(`UPDATE approval_requests SET expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`, [
      [h1.body.approval.id, h2.body.approval.id],
    ]);

    const late = await approve(other, h1.body.approval.id);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("approval-expired");
    const listed = await list(other, `?status=all&reviewId=${r2.id}`);
    expect(listed.body.approvals[0].status).toBe("expired");
    for (const r of [r1, r2]) {
      expect(await state(r.id)).toMatchObject({ status: "open", version: 1, cancels: 0 });
      const log = await logOf(r.id);
      expect(log.map((l) => l.action)).toEqual(["review.reported", "approval.requested", "approval.expired"]);
      expect(log[2].actor).toBe("system:approvals");
    }
  });

  it("when the record changed after the request, the approval fails with 409 and nothing runs", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const r = await record(payments.kind);
    const requester = await signedIn("owner", "req");
    const other = await signedIn("owner", "other");
    const held = await cancel(requester, r.id);
    const note = await call(act, {
      ...auth(other),
      params: { id: r.id },
      body: { action: "note", expectedVersion: 1, reason: "called the customer" },
    });
    expect(note.status).toBe(200);

    const res = await approve(other, held.body.approval.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("approval-stale");
    expect(await state(r.id)).toMatchObject({ status: "open", version: 2, journal: null, cancels: 0 });
    const [row] = await sql(`SELECT status, problem FROM approval_requests WHERE id = $1`, [held.body.approval.id]);
    expect(row.status).toBe("failed");
    expect(row.problem).toMatch(/version 2/);
    expect((await logOf(r.id)).map((l) => l.action)).toEqual([
      "review.reported",
      "approval.requested",
      "review.note",
      "approval.failed",
    ]);
  });

  it("a policy of one domain holds back nothing of another, and approving needs the permission in that domain", async () => {
    const payments = await domain("payments");
    const messaging = await domain("messaging");
    await policy({ decision: "cancel", domain: payments.name });
    const requester = await signedIn("owner", "req");

    const elsewhere = await record(messaging.kind);
    const direct = await cancel(requester, elsewhere.id);
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ status: "cancelled" });

    const r = await record(payments.kind);
    const held = await cancel(requester, r.id);
    expect(held.status).toBe(202);
    const messagingOwner = await scopedPerson("owner", messaging.name);
    // Another domain's request is not listed for them, as its record is not.
    const seen = await list(messagingOwner, "?status=all");
    expect(seen.status).toBe(200);
    expect(seen.body.approvals.map((a: { id: string }) => a.id)).not.toContain(held.body.approval.id);
    expect((await list(requester, "?status=all")).body.approvals.map((a: { id: string }) => a.id)).toContain(
      held.body.approval.id,
    );
    const refused = await approve(messagingOwner, held.body.approval.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    const paymentsOwner = await scopedPerson("owner", payments.name);
    const ok = await approve(paymentsOwner, held.body.approval.id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await state(r.id)).toMatchObject({ status: "cancelled" });
  });

  it("a scoped reader's requests are listed even under 200 newer ones of another domain", async () => {
    const payments = await domain("payments");
    const messaging = await domain("messaging");
    await policy({ decision: "cancel", domain: payments.name });
    const requester = await signedIn("owner", "req");
    const r = await record(payments.kind);
    const held = await cancel(requester, r.id);
    expect(held.status).toBe(202);
    // 210 newer pending requests of messaging, written as the store writes them.
    await sql(
      `INSERT INTO approval_requests (decision, permission, domain, domains, request, reason, requested_by,
              requested_by_kind, requested_by_id, requested_role, expires_at, created_at)
       SELECT 'cancel', 'reviews.resolve', $1, '[]', '{}', 'elsewhere', 'user:x', 'user', 'x', 'owner',
              now() + interval '1 day', now() + make_interval(secs => g)
         FROM generate_series(1, 210) g`,
      [messaging.name],
    );
    const paymentsOwner = await scopedPerson("owner", payments.name);
    const seen = await list(paymentsOwner);
    expect(seen.status).toBe(200);
    expect(seen.body.approvals.map((a: { id: string }) => a.id)).toEqual([held.body.approval.id]);
    expect(seen.body.waitingForYou).toBe(1);
    // A global reader gets the newest 200, the messaging ones.
    const global = await list(requester);
    expect(global.body.approvals).toHaveLength(200);
    expect(global.body.approvals.map((a: { id: string }) => a.id)).not.toContain(held.body.approval.id);
  });

  it("an action no policy names runs at once; a refused action is refused at the request, not stored", async () => {
    const payments = await domain("payments");
    await policy({ decision: "cancel", domain: payments.name });
    const requester = await signedIn("owner", "req");
    const r = await record(payments.kind);
    const note = await call(act, {
      ...auth(requester),
      params: { id: r.id },
      body: { action: "note", expectedVersion: 1, reason: "a note" },
    });
    expect(note.status).toBe(200);
    const stale = await cancel(requester, r.id, 1);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("stale-version");
    // The effect is applied already: cancelling it is refused now, not after a second person agreed.
    await sql(`INSERT INTO effect_journal (effect_key, state) VALUES ($1, 'applied')`, [r.effectKey]);
    const applied = await cancel(requester, r.id, 2);
    expect(applied.status).toBe(409);
    expect(applied.body.error.code).toBe("effect-applied");
    expect(await sql(`SELECT 1 FROM approval_requests WHERE review_id = $1`, [r.id])).toHaveLength(0);
  });
});

describe("four-eyes approvals of bulk operations", () => {
  it("above the policy's count an operation waits and is created on approval; at or below it runs directly", async () => {
    const payments = await domain("payments");
    const messaging = await domain("messaging");
    await policy({ decision: "operation", domain: payments.name, minRecords: 2 });
    const requester = await signedIn("owner", "req");
    const other = await signedIn("owner", "other");
    const three = [await record(payments.kind), await record(payments.kind), await record(payments.kind)];
    const create = (ids: string[]) =>
      call(createOperationRoute, {
        ...auth(requester),
        body: { action: "note", reason: "mark the incident", selection: { type: "ids", ids } },
      });

    const small = await create(three.slice(0, 2).map((r) => r.id));
    expect(small.status).toBe(201);
    // Many records of another domain: its (absent) policy decides for them.
    const others = [await record(messaging.kind), await record(messaging.kind), await record(messaging.kind)];
    expect((await create(others.map((r) => r.id))).status).toBe(201);

    const operationsBefore = (await sql(`SELECT count(*)::int AS n FROM bulk_operations`))[0].n;
    const big = await create(three.map((r) => r.id));
    expect(big.status).toBe(202);
    expect(big.body.approval).toMatchObject({
      status: "pending",
      decision: "operation",
      operationAction: "note",
      records: 3,
      domain: payments.name,
    });
    expect((await sql(`SELECT count(*)::int AS n FROM bulk_operations`))[0].n).toBe(operationsBefore);
    const [requested] = await sql(
      `SELECT details FROM decision_log WHERE action = 'approval.requested' AND details->>'approvalId' = $1`,
      [big.body.approval.id],
    );
    expect(requested.details.decision).toEqual({ action: "operation", operationAction: "note", records: 3 });

    expect((await approve(requester, big.body.approval.id)).status).toBe(403);
    const ok = await approve(other, big.body.approval.id);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const operationId = ok.body.approval.operationId as string;
    const [op] = await sql(`SELECT state::text AS state, total, created_by FROM bulk_operations WHERE id = $1`, [
      operationId,
    ]);
    expect(op).toEqual({ state: "planned", total: 3, created_by: `user:${requester.email}` });
    const [created] = await sql(
      `SELECT details FROM decision_log WHERE action = 'operation.created' AND details->>'operationId' = $1`,
      [operationId],
    );
    expect(created.details.approval.approvedBy).toBe(`user:${other.email}`);
    const [approved] = await sql(
      `SELECT details FROM decision_log WHERE action = 'approval.approved' AND details->>'approvalId' = $1`,
      [big.body.approval.id],
    );
    expect(approved.details.decision).toMatchObject({ action: "operation", operationId, records: 3 });
  });
});

describe("approval policies", () => {
  it("only admins set them; a domain must exist; every change is in the decision log", async () => {
    const payments = await domain("payments");
    const owner = await tokenFor("owner");
    const refused = await call(setPolicyRoute, { token: owner, body: { decision: "cancel", reason: "x" } });
    expect(refused.status).toBe(403);
    admin ??= await tokenFor("admin");
    const unknown = await call(setPolicyRoute, {
      token: admin,
      body: { decision: "cancel", domain: `nowhere-${tag()}`, reason: "x" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "unknown-domain", issues: [{ path: "domain" }] });
    const count = await call(setPolicyRoute, {
      token: admin,
      body: { decision: "cancel", domain: payments.name, minRecords: 5, reason: "x" },
    });
    expect(count.status).toBe(400);
    expect(count.body.error.issues[0].path).toBe("minRecords");

    await policy({ decision: "skip-gap", domain: payments.name, expiresAfterSeconds: 7200 });
    const changed = await policy({ decision: "skip-gap", domain: payments.name, expiresAfterSeconds: 600 });
    expect(changed).toMatchObject({ decision: "skip-gap", domain: payments.name, expiresAfterSeconds: 600 });
    expect(await sql(`SELECT count(*)::int AS n FROM approval_policies WHERE domain = $1`, [payments.name])).toEqual([
      { n: 1 },
    ]);
    const removed = await call(removePolicyRoute, {
      token: admin,
      body: { decision: "skip-gap", domain: payments.name, reason: "no longer" },
    });
    expect(removed.status).toBe(200);
    expect(
      (
        await call(removePolicyRoute, {
          token: admin,
          body: { decision: "skip-gap", domain: payments.name, reason: "x" },
        })
      ).status,
    ).toBe(404);
    const log = await sql(
      `SELECT action, details FROM decision_log WHERE action LIKE 'approval-policy.%' AND details->>'domain' = $1 ORDER BY seq`,
      [payments.name],
    );
    expect(log.map((l) => l.action)).toEqual(["approval-policy.set", "approval-policy.set", "approval-policy.removed"]);
    expect(log[1].details).toMatchObject({ expiresAfterSeconds: 600, previous: { expiresAfterSeconds: 7200 } });
  });
});
