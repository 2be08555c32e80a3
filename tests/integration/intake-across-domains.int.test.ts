/**
 * Records of different domains that meet (docs/decisions/0038-keys-across-domains.md), with the
 * three domains of the report that found it: payments = card.charge, refunds = card.refund,
 * billing = invoice.*.
 *
 * - A scoped consumer's report whose message id is that of another domain's active record is
 *   refused (403 naming `message.id`, logged) and changes nothing, alone or in a batch.
 * - A scoped consumer's report naming another domain's effectKey or sequenceKey is refused (409
 *   naming the key and the domain); a scoped owner's action that would write the journal or the
 *   sequence of a key another domain's record names is refused the same way, so the billing
 *   record's effect and order stay as they were.
 * - heldOnKey shows a scoped reader only the records they may read.
 * The same through the fast path (the console's own server) and in a coalesced statement shared
 * with the reporter's other reports, which are still recorded.
 * A global identity is never asked: its reports and actions behave as before.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as confirmOperation } from "@/app/api/v1/operations/[operationId]/confirm/route";
import { POST as dryRunOperation } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { GET as itemsOfOperation } from "@/app/api/v1/operations/[operationId]/items/route";
import { GET as getOperation } from "@/app/api/v1/operations/[operationId]/route";
import { POST as createOperation } from "@/app/api/v1/operations/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as reportBatch } from "@/app/api/v1/reviews/batch/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { CLI_ACTOR } from "@/lib/access";
import { createApiToken } from "@/lib/auth";
import { createDomain } from "@/lib/domains";
import { consoleRequestListener } from "@/lib/server/console-server";
import { intakeCoalescer } from "@/lib/reviews";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";
import { dispatchUntil, newTag, operationsApi } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const tokens = {} as Record<"global" | "paymentsConsumer" | "refundsConsumer" | "refundsOwner" | "globalOwner", string>;
const names = { paymentsConsumer: `payments-worker-${newTag()}`, refundsConsumer: `refunds-worker-${newTag()}` };

beforeAll(async () => {
  await createDomain({ name: "payments", kinds: ["card.charge"] }, "test", CLI_ACTOR);
  await createDomain({ name: "refunds", kinds: ["card.refund"] }, "test", CLI_ACTOR);
  await createDomain({ name: "billing", kinds: ["invoice.*"] }, "test", CLI_ACTOR);
  const scoped = async (name: string, role: "consumer" | "owner", domain: string) =>
    (await createApiToken(name, role, "system:test", { domain })).token;
  tokens.global = await tokenFor("consumer");
  tokens.globalOwner = await tokenFor("owner");
  tokens.paymentsConsumer = await scoped(names.paymentsConsumer, "consumer", "payments");
  tokens.refundsConsumer = await scoped(names.refundsConsumer, "consumer", "refunds");
  tokens.refundsOwner = await scoped(`refunds-owner-${newTag()}`, "owner", "refunds");
});

interface Keys {
  id?: string;
  kind?: string;
  effectKey?: string;
  sequenceKey?: string;
  sequence?: number;
}

/** A report; the message's members are `keys` (a member set to undefined is left out). */
function body(keys: Keys, fields: Record<string, unknown> = {}) {
  const tag = newTag();
  const message: Record<string, unknown> = {
    id: `msg-${tag}`,
    kind: "invoice.reminder",
    effectKey: `fx-${tag}`,
    sequenceKey: `seq-${tag}`,
    sequence: 1,
    payload: { schema: "2021-03", invoiceId: tag },
  };
  for (const [k, v] of Object.entries(keys)) {
    if (v === undefined) delete message[k];
    else message[k] = v;
  }
  return {
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: "find the predecessor",
    attempts: 1,
    ...fields,
    message,
  };
}

/** A billing record reported by the global consumer: its id, keys and row as stored. */
async function billingRecord(category = "sequence-gap") {
  const sent = body({}, { category, lastError: "billing: predecessor missing" });
  const created = await call(report, { token: tokens.global, body: sent });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, message: sent.message as Required<Keys> };
}

const recordRow = async (id: string) =>
  (
    await sql(
      `SELECT reason, attempts, last_error, category::text, required_check, report_count, version, kind
         FROM review_records WHERE id = $1`,
      [id],
    )
  )[0];
const historyOf = async (id: string) =>
  (await sql(`SELECT actor, action FROM review_history WHERE review_id = $1 ORDER BY id`, [id])).map(
    (h) => `${h.actor} ${h.action}`,
  );
const refusalsOf = (tokenName: string) =>
  sql(`SELECT details FROM decision_log WHERE action = 'authorization.refused' AND actor = $1 ORDER BY seq`, [
    `token:${tokenName}`,
  ]);

describe("a scoped consumer's report landing on another domain's record", () => {
  it("is a 403 naming message.id, with kind card.charge or with no kind, and the billing record stays as it was", async () => {
    const billing = await billingRecord();
    const before = await recordRow(billing.id);
    for (const kind of ["card.charge", undefined]) {
      const refused = await call(report, {
        token: tokens.paymentsConsumer,
        body: body(
          { id: billing.message.id, kind },
          {
            category: "manual-review",
            reason: "invalid-payload",
            requiredCheck: "ignore this",
            attempts: 9,
            lastError: "payments took it",
          },
        ),
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body.error.code).toBe("outside-domain");
      expect(refused.body.error.issues[0].path).toBe("message.id");
      expect(refused.body.error.message).toContain("domain billing");
      expect(JSON.stringify(refused.body)).not.toContain(billing.id);
    }
    expect(await recordRow(billing.id)).toEqual(before);
    expect(await historyOf(billing.id)).toEqual([expect.stringMatching(/ reported$/)]);
    const refusals = await refusalsOf(names.paymentsConsumer);
    expect(refusals.map((r) => r.details)).toContainEqual(
      expect.objectContaining({ field: "message.id", domain: "billing", permission: "reviews.report" }),
    );

    // The record's own reporter (global) still joins it; the payments consumer still joins its own.
    const again = await call(report, { token: tokens.global, body: body({ id: billing.message.id }) });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(billing.id);
    const own = body({ kind: "card.charge" });
    expect((await call(report, { token: tokens.paymentsConsumer, body: own })).status).toBe(201);
    expect((await call(report, { token: tokens.paymentsConsumer, body: { ...own, attempts: 2 } })).status).toBe(200);
  });

  it("is refused item by item in a batch; the other items are recorded", async () => {
    const billing = await billingRecord();
    const before = await recordRow(billing.id);
    const batch = await call(reportBatch, {
      token: tokens.paymentsConsumer,
      body: {
        records: [
          body({ id: billing.message.id, kind: "card.charge" }, { reason: "rewritten" }),
          body({ kind: "card.charge" }),
          body({ id: billing.message.id, kind: undefined }, { reason: "rewritten" }),
        ],
      },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body).toMatchObject({ recorded: 1, rejected: 2 });
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([403, 201, 403]);
    expect(batch.body.results[0]).toMatchObject({
      index: 0,
      error: { code: "outside-domain", issues: [{ path: "message.id" }] },
    });
    expect(await recordRow(billing.id)).toEqual(before);
    expect(await historyOf(billing.id)).toEqual([expect.stringMatching(/ reported$/)]);
  });
});

describe("the same refusals on every way in", () => {
  let server: Server;
  let base: string;
  let nextCalls = 0;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    // Next stood in for (299): a request that fell through to it shows.
    const next = (_req: unknown, res: { writeHead(status: number): { end(): void } }) => {
      nextCalls += 1;
      res.writeHead(299).end();
    };
    server.on("request", consoleRequestListener(next, { hostname: "127.0.0.1", port, fastPath: true }));
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const post = async (path: string, token: string, sent: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(sent),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it("the fast path refuses a landing report (403 message.id) and a shared key (409), single and batch", async () => {
    const billing = await billingRecord();
    const before = await recordRow(billing.id);
    const landing = await post(
      "/api/v1/reviews",
      tokens.paymentsConsumer,
      body({ id: billing.message.id, kind: "card.charge" }, { reason: "rewritten" }),
    );
    expect(landing.status, JSON.stringify(landing.body)).toBe(403);
    expect(landing.body.error.issues[0].path).toBe("message.id");
    const key = await post(
      "/api/v1/reviews",
      tokens.refundsConsumer,
      body({ kind: "card.refund", effectKey: billing.message.effectKey }),
    );
    expect(key.status, JSON.stringify(key.body)).toBe(409);
    expect(key.body.error.code).toBe("key-in-other-domain");
    const batch = await post("/api/v1/reviews/batch", tokens.paymentsConsumer, {
      records: [body({ id: billing.message.id, kind: undefined }), body({ kind: "card.charge" })],
    });
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([403, 201]);
    expect(nextCalls).toBe(0);
    expect(await recordRow(billing.id)).toEqual(before);
  });

  it("concurrent reports share a statement: the landing ones are refused, the others recorded", async () => {
    const billing = await Promise.all([1, 2, 3, 4].map(() => billingRecord()));
    const before = await Promise.all(billing.map((b) => recordRow(b.id)));
    const statements = intakeCoalescer().stats.statements;
    const sent = [
      ...billing.map((b) => body({ id: b.message.id, kind: "card.charge" }, { reason: "rewritten" })),
      ...[1, 2, 3, 4].map(() => body({ kind: "card.charge" })),
    ];
    const answers = await Promise.all(sent.map((b) => call(report, { token: tokens.paymentsConsumer, body: b })));
    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403, 201, 201, 201, 201]);
    expect(answers[0]!.body.error.issues[0].path).toBe("message.id");
    // Fewer statements than reports: some went in together, and still each got its own answer.
    expect(intakeCoalescer().stats.statements - statements).toBeLessThan(sent.length);
    expect(await Promise.all(billing.map((b) => recordRow(b.id)))).toEqual(before);
  });
});

describe("keys named by records of different domains", () => {
  it("a refunds consumer's report with a billing record's effectKey or sequenceKey is a 409 naming the key and billing", async () => {
    const billing = await billingRecord();
    const both = await call(report, {
      token: tokens.refundsConsumer,
      body: body({
        kind: "card.refund",
        effectKey: billing.message.effectKey,
        sequenceKey: billing.message.sequenceKey,
      }),
    });
    expect(both.status, JSON.stringify(both.body)).toBe(409);
    expect(both.body.error.code).toBe("key-in-other-domain");
    expect(both.body.error.issues[0].path).toBe("message.effectKey");
    expect(both.body.error.message).toContain(billing.message.effectKey);
    expect(both.body.error.message).toContain("domain billing");

    const sequenceOnly = await call(report, {
      token: tokens.refundsConsumer,
      body: body({ kind: "card.refund", sequenceKey: billing.message.sequenceKey }),
    });
    expect(sequenceOnly.status).toBe(409);
    expect(sequenceOnly.body.error.issues[0].path).toBe("message.sequenceKey");
    expect(sequenceOnly.body.error.message).toContain(billing.message.sequenceKey);

    const inBatch = await call(reportBatch, {
      token: tokens.refundsConsumer,
      body: {
        records: [body({ kind: "card.refund", effectKey: billing.message.effectKey }), body({ kind: "card.refund" })],
      },
    });
    expect(inBatch.body.results.map((r: { status: number }) => r.status)).toEqual([409, 201]);

    expect(
      await sql(`SELECT kind FROM review_records WHERE effect_key = $1 OR sequence_key = $2`, [
        billing.message.effectKey,
        billing.message.sequenceKey,
      ]),
    ).toEqual([{ kind: "invoice.reminder" }]);
    // A global reporter is not asked (as before): it reaches every domain.
    const global = await call(report, {
      token: tokens.global,
      body: body({
        kind: "card.refund",
        effectKey: billing.message.effectKey,
        sequenceKey: billing.message.sequenceKey,
      }),
    });
    expect(global.status).toBe(201);
  });

  it("a refunds owner cannot cancel, skip or confirm a refunds record whose keys a billing record names: the billing effect still runs", async () => {
    const billing = await billingRecord();
    const { effectKey, sequenceKey } = billing.message;
    // Records that share keys already (reported before this rule, or by a global reporter).
    const shared = async (category: string, sequence: number) => {
      const created = await call(report, {
        token: tokens.global,
        body: body({ kind: "card.refund", effectKey, sequenceKey, sequence }, { category }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const attempts: [string, Record<string, unknown>][] = [
      [await shared("sequence-gap", 1), { action: "cancel" }],
      [await shared("sequence-gap", 3), { action: "skip-gap" }],
      [await shared("effect-result-unknown", 1), { action: "confirm-applied", providerRef: "re_1" }],
      [await shared("effect-result-unknown", 1), { action: "confirm-not-applied" }],
    ];
    for (const [id, request] of attempts) {
      const res = await call(act, {
        token: tokens.refundsOwner,
        params: { id },
        body: { ...request, expectedVersion: 1, reason: "refund withdrawn", checkDone: true },
      });
      expect(res.status, `${request.action}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.error.code).toBe("key-in-other-domain");
      expect(res.body.error.message).toContain("domain billing");
      expect((await recordRow(id)).version).toBe(1);
    }
    expect(await sql(`SELECT state FROM effect_journal WHERE effect_key = $1`, [effectKey])).toEqual([]);
    expect(await sql(`SELECT last_sequence FROM sequence_state WHERE sequence_key = $1`, [sequenceKey])).toEqual([]);

    // The billing record's replay would apply, not be suppressed.
    const api = operationsApi();
    const created = await api.create({
      action: "replay",
      reason: "check",
      selection: { type: "ids", ids: [billing.id] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const dry = await api.dryRun(created.body.id);
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.dryRun.counts).toEqual({ "would-apply": 1 });

    // A global owner decides for every domain, as before.
    const globalCancel = await call(act, {
      token: tokens.globalOwner,
      params: { id: attempts[0]![0] },
      body: { action: "cancel", expectedVersion: 1, reason: "both sides agreed", checkDone: true },
    });
    expect(globalCancel.status, JSON.stringify(globalCancel.body)).toBe(200);
  });

  it("a refunds owner's bulk cancel skips the record whose keys a billing record names", async () => {
    const billing = await billingRecord();
    const { effectKey, sequenceKey } = billing.message;
    const sharing = await call(report, {
      token: tokens.global,
      body: body({ kind: "card.refund", effectKey, sequenceKey, sequence: 1 }),
    });
    const own = await call(report, { token: tokens.refundsConsumer, body: body({ kind: "card.refund" }) });
    const ids = [sharing.body.id as string, own.body.id as string];
    const token = tokens.refundsOwner;
    const created = await call(createOperation, {
      token,
      body: { action: "cancel", reason: "refunds withdrawn", selection: { type: "ids", ids } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const operationId = created.body.id as string;
    const dry = await call(dryRunOperation, { token, params: { operationId }, body: {} });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const confirmed = await call(confirmOperation, {
      token,
      params: { operationId },
      body: { expectedVersion: dry.body.version, dryRunAt: dry.body.dryRun.at, checkDone: true },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    await dispatchUntil(async () => {
      const view = await call(getOperation, { token, params: { operationId } });
      return view.body.state === "completed" ? view.body : undefined;
    });
    const items = await call(itemsOfOperation, { token, params: { operationId } });
    const byReview = new Map(items.body.items.map((i: { reviewId: string }) => [i.reviewId, i]));
    expect(byReview.get(ids[0]!)).toMatchObject({ state: "skipped" });
    expect((byReview.get(ids[0]!) as { detail: string }).detail).toMatch(/^key-in-other-domain/);
    expect(byReview.get(ids[1]!)).toMatchObject({ state: "done" });
    expect(await sql(`SELECT state FROM effect_journal WHERE effect_key = $1`, [effectKey])).toEqual([]);
    expect(await sql(`SELECT last_sequence FROM sequence_state WHERE sequence_key = $1`, [sequenceKey])).toEqual([]);
  });

  it("heldOnKey lists a scoped reader only the records they may read", async () => {
    const billing = await billingRecord();
    const refund = await call(report, {
      token: tokens.global,
      body: body({ kind: "card.refund", sequenceKey: billing.message.sequenceKey, sequence: 2 }),
    });
    const refundId = refund.body.id as string;
    const scoped = await call(detail, { token: tokens.refundsOwner, params: { id: refundId } });
    expect(scoped.status).toBe(200);
    expect(scoped.body.heldOnKey).toEqual([]);
    const global = await call(detail, { token: tokens.globalOwner, params: { id: refundId } });
    expect(global.body.heldOnKey.map((r: { id: string }) => r.id)).toEqual([billing.id]);
  });
});
