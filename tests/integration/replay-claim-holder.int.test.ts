/**
 * A replay's outcome comes from whoever holds its claim: another consumer token cannot resolve a
 * replay it did not claim (nothing lost, nothing forged).
 */
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

const kindOf = () => `replay.holder.${Math.random().toString(36).slice(2, 8)}`;

/** A held record of a kind of its own, with a replay scheduled by an owner; returns its id. */
async function scheduledReplay(consumerToken: string, ownerToken: string, kind: string): Promise<string> {
  const key = `k-${kind}`;
  const created = await call(report, {
    token: consumerToken,
    body: {
      category: "sequence-gap",
      reason: "sequence-gap",
      requiredCheck: "find it",
      attempts: 1,
      message: { id: `msg-${key}`, kind, effectKey: `${key}:1`, sequenceKey: key, sequence: 1, payload: {} },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const replayed = await call(act, {
    token: ownerToken,
    params: { id: created.body.id },
    body: { action: "replay", expectedVersion: 1, reason: "predecessor arrived", checkDone: true },
  });
  expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
  return created.body.id as string;
}

describe("replay outcome from the claim holder only", () => {
  it("refuses an outcome from another token (403, logged, nothing changed) and accepts the holder's", async () => {
    const owner = await tokenFor("owner");
    const tokenA = await tokenFor("consumer", "orders-worker-a");
    const tokenB = await tokenFor("consumer", "orders-worker-b");
    const kind = kindOf();
    const reviewId = await scheduledReplay(tokenA, owner, kind);

    const claimed = await call(claim, { token: tokenA, body: { consumer: "worker-a", kinds: [kind] } });
    expect(claimed.status).toBe(200);
    expect(claimed.body.items).toHaveLength(1);
    const replayId = claimed.body.items[0].replayId as string;
    const before = await sql(
      `SELECT r.state::text AS state, r.claimed_by, r.claimed_by_actor, r.claim_expires_at, r.completed_at,
              rr.status::text AS status, rr.version, rr.attempts
         FROM replays r JOIN review_records rr ON rr.id = r.review_id WHERE r.id = $1`,
      [replayId],
    );
    expect(before[0]).toMatchObject({ state: "claimed", claimed_by: "worker-a", status: "replaying" });
    expect(before[0].claimed_by_actor).toMatch(/^token:[0-9a-f-]{36}$/);
    const [{ seq: lastSeq }] = await sql(`SELECT max(seq)::int AS seq FROM decision_log`);

    // Token B, a consumer token as good as A's, may not report the replay A claimed.
    const forged = await call(outcome, {
      token: tokenB,
      path: `/api/v1/replays/${replayId}/outcome`,
      params: { replayId },
      body: { outcome: "applied", detail: "applied, honestly" },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("not-claim-holder");
    expect(forged.body.error.message).toContain(replayId);
    expect(forged.body.error.message).not.toContain(before[0].claimed_by_actor);
    expect(forged.body.error.message).not.toContain(tokenA);

    const after = await sql(
      `SELECT r.state::text AS state, r.claimed_by, r.claimed_by_actor, r.claim_expires_at, r.completed_at,
              rr.status::text AS status, rr.version, rr.attempts
         FROM replays r JOIN review_records rr ON rr.id = r.review_id WHERE r.id = $1`,
      [replayId],
    );
    expect(after, "the replay is still claimed and the record unchanged").toEqual(before);
    const entries = await sql(
      `SELECT actor, actor_role, action, review_id::text, reason, details FROM decision_log WHERE seq > $1 ORDER BY seq`,
      [lastSeq],
    );
    expect(entries, "the refusal is the only entry").toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: "token:orders-worker-b",
      actor_role: "consumer",
      action: "authorization.refused",
      review_id: reviewId,
      details: { rule: "claim-holder", replayId, outcome: "applied", claimHolder: before[0].claimed_by_actor },
    });
    const history = await sql(`SELECT action FROM review_history WHERE review_id = $1 ORDER BY at, id`, [reviewId]);
    expect(history.map((h) => h.action)).not.toContain("replay-applied");

    const done = await call(outcome, {
      token: tokenA,
      path: `/api/v1/replays/${replayId}/outcome`,
      params: { replayId },
      body: { outcome: "applied", detail: "applied" },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ ok: true, replayId, reviewId, recordStatus: "resolved" });
    const [row] = await sql(`SELECT state::text FROM replays WHERE id = $1`, [replayId]);
    expect(row.state).toBe("applied");
  });

  it("after a lapsed claim is taken over, the first claimer's late outcome is refused", async () => {
    const owner = await tokenFor("owner");
    const tokenA = await tokenFor("consumer");
    const tokenB = await tokenFor("consumer");
    const kind = kindOf();
    const reviewId = await scheduledReplay(tokenA, owner, kind);
    const first = await call(claim, { token: tokenA, body: { consumer: "worker-a", kinds: [kind], leaseSeconds: 5 } });
    const replayId = first.body.items[0].replayId as string;
    await sql(`UPDATE replays SET claim_expires_at = now() - interval '1 second' WHERE id = $1`, [replayId]);
    const second = await call(claim, { token: tokenB, body: { consumer: "worker-b", kinds: [kind] } });
    expect(second.body.items.map((i: { replayId: string }) => i.replayId)).toEqual([replayId]);

    const late = await call(outcome, { token: tokenA, params: { replayId }, body: { outcome: "failed" } });
    expect(late.status).toBe(403);
    expect(late.body.error.code).toBe("not-claim-holder");
    const [record] = await sql(`SELECT status::text FROM review_records WHERE id = $1`, [reviewId]);
    expect(record.status).toBe("replaying");

    const holder = await call(outcome, { token: tokenB, params: { replayId }, body: { outcome: "applied" } });
    expect(holder.status, JSON.stringify(holder.body)).toBe(200);
  });
});
