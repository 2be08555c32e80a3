import { describe, expect, it } from "vitest";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();

let n = 0;
function envelope(overrides: Record<string, unknown> = {}) {
  n += 1;
  return {
    id: `msg-intake-${n}-${Math.random().toString(36).slice(2)}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${n}:reminder`,
    sequenceKey: `invoice-${n}`,
    sequence: 4,
    payload: { invoiceId: String(n), schema: "2021-03" },
    ...overrides,
  };
}

function reportOf(message: unknown, overrides: Record<string, unknown> = {}) {
  return {
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: "find messages 1–3 of invoice",
    attempts: 1,
    source: { transport: "redis-streams", queue: "invoices", consumer: "worker-1", transportId: "1700000000000-0" },
    message,
    ...overrides,
  };
}

async function counts() {
  return withClient(database.current.url, async (c) => {
    const { rows } = await c.query(`SELECT
      (SELECT count(*) FROM review_records)::int AS records,
      (SELECT count(*) FROM review_history)::int AS history,
      (SELECT count(*) FROM decision_log WHERE action LIKE 'review.%')::int AS log`);
    return rows[0] as { records: number; history: number; log: number };
  });
}

describe("POST /api/v1/reviews", () => {
  it("creates a record (201), keeps the message as received, and logs the intake in the decision log", async () => {
    const token = await tokenFor("consumer");
    const reader = await tokenFor("auditor");
    // Key order and unusual keys must survive: the message is evidence.
    const message = { zeta: 1, id: `msg-order-${Date.now()}`, kind: "invoice.reminder", alpha: { b: 2, a: 1 } };
    const created = await call(report, {
      token,
      body: reportOf(message, { category: "manual-review", reason: "invalid-contract" }),
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe("open");

    const got = await call(detail, { token: reader, params: { id: created.body.id } });
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body.message)).toBe(JSON.stringify(message));
    expect(got.body).toMatchObject({
      category: "manual-review",
      reason: "invalid-contract",
      messageId: message.id,
      kind: "invoice.reminder",
      effectKey: null,
      attempts: 1,
      version: 1,
    });
    expect(got.body.history).toHaveLength(1);
    expect(got.body.journal).toBeNull();

    const log = await withClient(database.current.url, (c) =>
      c.query("SELECT actor, action, effect_key FROM decision_log WHERE review_id = $1", [created.body.id]),
    );
    expect(log.rows).toEqual([
      { actor: expect.stringMatching(/^token:/), action: "review.reported", effect_key: null },
    ]);
  });

  it("a second report of an open record updates it (200): attempts, last seen, history; never a duplicate", async () => {
    const token = await tokenFor("consumer");
    const reader = await tokenFor("owner");
    const message = envelope();
    const first = await call(report, { token, body: reportOf(message) });
    const second = await call(report, { token, body: reportOf(message, { lastError: "still missing" }) });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    const got = await call(detail, { token: reader, params: { id: first.body.id } });
    expect(got.body.attempts).toBe(2);
    expect(got.body.reportCount).toBe(2);
    expect(got.body.version).toBe(2);
    expect(got.body.history.map((h: { action: string }) => h.action)).toEqual(["reported", "reported-again"]);
    expect(Date.parse(got.body.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(got.body.firstSeenAt));
    const found = await call(list, {
      token: reader,
      path: `/api/v1/reviews?effectKey=${encodeURIComponent(message.effectKey)}`,
    });
    expect(found.body.items).toHaveLength(1);
  });

  it("the list finds a record by its exact message id (messageId filter), and only it", async () => {
    const token = await tokenFor("consumer");
    const reader = await tokenFor("support");
    const message = envelope();
    const created = await call(report, { token, body: reportOf(message) });
    await call(report, { token, body: reportOf({ ...envelope(), id: `${message.id}-other` }) });
    const found = await call(list, {
      token: reader,
      path: `/api/v1/reviews?messageId=${encodeURIComponent(message.id)}`,
    });
    expect(found.status).toBe(200);
    expect(found.body.items.map((i: { id: string }) => i.id)).toEqual([created.body.id]);
  });

  it("a message without an id is deduplicated by a fingerprint of its raw text", async () => {
    const token = await tokenFor("consumer");
    const message = { kind: "invoice.reminder", payload: { note: `no id ${Math.random()}` } };
    const first = await call(report, {
      token,
      body: reportOf(message, { category: "manual-review", reason: "invalid-contract" }),
    });
    const again = await call(report, {
      token,
      body: reportOf(message, { category: "manual-review", reason: "invalid-contract" }),
    });
    const other = await call(report, {
      token,
      body: reportOf({ ...message, extra: true }, { category: "manual-review", reason: "invalid-contract" }),
    });
    expect([first.status, again.status, other.status]).toEqual([201, 200, 201]);
    expect(again.body.id).toBe(first.body.id);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it("20 parallel reports of the same message produce one record with every attempt counted, and no 500", async () => {
    const token = await tokenFor("consumer");
    const message = envelope();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(report, { token, body: reportOf(message) })),
    );
    expect(results.map((r) => r.status).sort((x, y) => x - y)).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const rows = await withClient(database.current.url, (c) =>
      c.query("SELECT attempts, report_count FROM review_records WHERE message_id = $1", [message.id]),
    );
    expect(rows.rows).toEqual([{ attempts: 20, report_count: 20 }]);
    const history = await withClient(database.current.url, (c) =>
      c.query(
        "SELECT count(*)::int AS n FROM review_history h JOIN review_records r ON r.id = h.review_id WHERE r.message_id = $1",
        [message.id],
      ),
    );
    expect(history.rows[0].n).toBe(20);
  });

  it("a report of a message whose record is resolved opens a new record", async () => {
    const token = await tokenFor("consumer");
    const message = envelope();
    const first = await call(report, { token, body: reportOf(message) });
    await withClient(database.current.url, (c) =>
      c.query("UPDATE review_records SET status = 'resolved' WHERE id = $1", [first.body.id]),
    );
    const second = await call(report, { token, body: reportOf(message) });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });
});

describe("POST /api/v1/reviews/batch", () => {
  it("records valid items, answers invalid ones per item, and merges repeats of one message in order", async () => {
    const token = await tokenFor("consumer");
    const a = envelope();
    const b = envelope();
    const before = await counts();
    const response = await call(batch, {
      token,
      body: { records: [reportOf(a), reportOf(b), { ...reportOf(a), attempts: "x" }, reportOf(a)] },
    });
    expect(response.status).toBe(200);
    const [ra, rb, bad, ra2] = response.body.results;
    expect(ra).toMatchObject({ index: 0, status: 201 });
    expect(rb).toMatchObject({ index: 1, status: 201 });
    expect(bad).toMatchObject({ index: 2, status: 400, error: { issues: [{ path: "records.2.attempts" }] } });
    expect(ra2).toMatchObject({ index: 3, status: 200, id: ra.id, attempts: 2 });
    const after = await counts();
    expect(after.records - before.records).toBe(2);
    expect(after.log - before.log).toBe(3);
  });

  it("refuses more than 500 records and an empty batch, naming the field", async () => {
    const token = await tokenFor("consumer");
    const big = await call(batch, { token, body: { records: Array.from({ length: 501 }, () => ({})) } });
    expect(big.status).toBe(400);
    expect(big.body.error.issues[0].path).toBe("records");
    const empty = await call(batch, { token, body: { records: [] } });
    expect(empty.status).toBe(400);
  });
});
