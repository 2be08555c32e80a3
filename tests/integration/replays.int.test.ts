import { describe, expect, it } from "vitest";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { POST as claim } from "@/app/api/v1/replays/claim/route";
import { POST as outcome } from "@/app/api/v1/replays/[replayId]/outcome/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let consumer = "";
let owner = "";
async function tokens() {
  consumer ||= await tokenFor("consumer");
  owner ||= await tokenFor("owner");
}

/** A held record of its own kind (so claims in one test never see another test's replays). */
async function scheduled(kind: string, sequenceKey: string, sequence: number, runAt?: string) {
  await tokens();
  const message = {
    id: `msg-${sequenceKey}-${sequence}`,
    kind,
    effectKey: `${sequenceKey}:${sequence}`,
    sequenceKey,
    sequence,
    payload: { schema: "2021-03", invoiceId: String(sequence) },
  };
  const created = await call(report, {
    token: consumer,
    body: { category: "sequence-gap", reason: "sequence-gap", requiredCheck: "find it", attempts: 1, message },
  });
  const replayed = await call(act, {
    token: owner,
    params: { id: created.body.id },
    body: {
      action: "replay",
      expectedVersion: 1,
      reason: "predecessor arrived",
      checkDone: true,
      ...(runAt ? { runAt } : {}),
    },
  });
  expect(replayed.status).toBe(200);
  return { id: created.body.id as string, message };
}

const claimFor = (kind: string, extra: Record<string, unknown> = {}) =>
  call(claim, { token: consumer, body: { consumer: "worker-1", kinds: [kind], ...extra } });

const kindOf = () => `replay.test.${Math.random().toString(36).slice(2, 8)}`;

describe("POST /api/v1/replays/claim", () => {
  it("hands out a due replay with the original id and effectKey, and the record becomes replaying", async () => {
    const kind = kindOf();
    const r = await scheduled(kind, `k-${kind}`, 1);
    const res = await claimFor(kind);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ reviewId: r.id, envelope: r.message });
    const [row] = await sql(`SELECT status::text FROM review_records WHERE id = $1`, [r.id]);
    expect(row.status).toBe("replaying");
    expect((await claimFor(kind)).body.items, "a claimed replay is not handed out twice").toHaveLength(0);
  });

  it("does not hand out a replay before its time", async () => {
    const kind = kindOf();
    await scheduled(kind, `k-${kind}`, 1, new Date(Date.now() + 3_600_000).toISOString());
    expect((await claimFor(kind)).body.items).toHaveLength(0);
  });

  it("runs one sequence key's replays one at a time, in sequence order", async () => {
    const kind = kindOf();
    const key = `k-${kind}`;
    const six = await scheduled(kind, key, 6);
    const five = await scheduled(kind, key, 5);
    const first = await claimFor(kind, { limit: 10 });
    expect(first.body.items.map((i: { reviewId: string }) => i.reviewId)).toEqual([five.id]);
    expect((await claimFor(kind)).body.items, "6 waits while 5 is claimed").toHaveLength(0);
    const done = await call(outcome, {
      token: consumer,
      params: { replayId: first.body.items[0].replayId },
      body: { outcome: "applied" },
    });
    expect(done.status).toBe(200);
    const second = await claimFor(kind);
    expect(second.body.items.map((i: { reviewId: string }) => i.reviewId)).toEqual([six.id]);
  });

  it("concurrent claims never hand one replay to two consumers", async () => {
    const kind = kindOf();
    for (let i = 0; i < 12; i++) await scheduled(kind, `k-${kind}-${i}`, 1);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(claim, { token: consumer, body: { consumer: `w${i}`, kinds: [kind], limit: 3 } }),
      ),
    );
    const ids = results.flatMap((r) => r.body.items.map((i: { replayId: string }) => i.replayId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(12);
  });

  it("an abandoned claim becomes claimable again after its lease", async () => {
    const kind = kindOf();
    const r = await scheduled(kind, `k-${kind}`, 1);
    const first = await claimFor(kind, { leaseSeconds: 5 });
    expect(first.body.items).toHaveLength(1);
    await sql(`UPDATE replays SET claim_expires_at = now() - interval '1 second' WHERE review_id = $1`, [r.id]);
    const again = await call(claim, { token: consumer, body: { consumer: "worker-2", kinds: [kind] } });
    expect(again.body.items.map((i: { reviewId: string }) => i.reviewId)).toEqual([r.id]);
    const [row] = await sql(`SELECT claimed_by, claims FROM replays WHERE review_id = $1`, [r.id]);
    expect(row).toEqual({ claimed_by: "worker-2", claims: 2 });
  });

  it("only consumer tokens claim (403 for owner) and the body is validated (400 naming the field)", async () => {
    await tokens();
    expect((await call(claim, { token: owner, body: { consumer: "x" } })).status).toBe(403);
    const bad = await call(claim, { token: consumer, body: { consumer: "x", limit: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("limit");
  });
});

describe("POST /api/v1/replays/{replayId}/outcome", () => {
  it.each([
    ["applied", "resolved", 1],
    ["duplicate-suppressed", "resolved", 1],
    ["routed", "open", 2],
    ["failed", "open", 2],
  ])("%s sets the record to %s", async (result, recordStatus, attempts) => {
    const kind = kindOf();
    const r = await scheduled(kind, `k-${kind}`, 1);
    const [item] = (await claimFor(kind)).body.items;
    const res = await call(outcome, {
      token: consumer,
      params: { replayId: item.replayId },
      body: {
        outcome: result,
        detail: "as decided",
        ...(result === "routed" ? { reason: "sequence-gap", requiredCheck: "find 0" } : {}),
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.recordStatus).toBe(recordStatus);
    const [row] = await sql(`SELECT status::text, attempts FROM review_records WHERE id = $1`, [r.id]);
    expect(row).toEqual({ status: recordStatus, attempts });
    const [log] = await sql(`SELECT action FROM decision_log WHERE review_id = $1 ORDER BY seq DESC LIMIT 1`, [r.id]);
    expect(log.action).toBe(`replay.${result}`);
    const again = await call(outcome, {
      token: consumer,
      params: { replayId: item.replayId },
      body: { outcome: "applied" },
    });
    expect(again.status, "an outcome is reported once").toBe(409);
  });

  it("a failed replay's detail becomes the record's last error and classes it; an outcome without one keeps both", async () => {
    const kind = kindOf();
    const r = await scheduled(kind, `k-${kind}`, 1);
    const errorOf = async () =>
      (await sql(`SELECT last_error, error_class FROM review_records WHERE id = $1`, [r.id]))[0];
    expect(await errorOf()).toEqual({ last_error: null, error_class: null });
    const [first] = (await claimFor(kind)).body.items;
    const failed = await call(outcome, {
      token: consumer,
      params: { replayId: first.replayId },
      body: { outcome: "failed", detail: "connect ECONNREFUSED 10.0.0.7:443" },
    });
    expect(failed.status).toBe(200);
    expect(await errorOf()).toEqual({ last_error: "connect ECONNREFUSED 10.0.0.7:443", error_class: "ECONNREFUSED" });

    const replayed = await call(act, {
      token: owner,
      params: { id: r.id },
      body: { action: "replay", expectedVersion: 4, reason: "try again", checkDone: true },
    });
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    const [second] = (await claimFor(kind)).body.items;
    const bare = await call(outcome, {
      token: consumer,
      params: { replayId: second.replayId },
      body: { outcome: "failed" },
    });
    expect(bare.status).toBe(200);
    expect(await errorOf()).toEqual({ last_error: "connect ECONNREFUSED 10.0.0.7:443", error_class: "ECONNREFUSED" });
  });

  it("unknown replays are 404", async () => {
    await tokens();
    const res = await call(outcome, {
      token: consumer,
      params: { replayId: "00000000-0000-4000-8000-000000000000" },
      body: { outcome: "applied" },
    });
    expect(res.status).toBe(404);
  });
});
