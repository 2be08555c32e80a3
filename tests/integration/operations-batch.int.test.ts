/**
 * The dispatcher acts on replays and notes in set-based batches (lib/operations/batch-actions.ts)
 * instead of calling the single-record action per record. These tests hold the two to the same
 * result: for twin records, the batch writes the same replay, history and decision-log rows as
 * POST /api/v1/reviews/{id}/actions with the operation's id, and refuses what it refuses.
 */
import { describe, expect, it } from "vitest";
import { type Actor } from "@/lib/access";
import { db } from "@/lib/db/client";
import { appendBatchEntries, noteBatch, replayBatch, createOperation } from "@/lib/operations";
import { performAction } from "@/lib/actions";
import { setupTestDatabase, withClient } from "../support/database";
import { envelope, newTag, reportGaps } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const owner: Actor = { kind: "user", id: "o", label: "user:batch-owner@test", role: "owner" };
const support: Actor = { kind: "user", id: "s", label: "user:batch-support@test", role: "support" };

/** Two records of one cause, and an operation over both (for its id). */
async function twins() {
  const tag = newTag();
  const ids = await reportGaps(
    [envelope("invoice.reminder", `a-${tag}`, 2), envelope("invoice.reminder", `b-${tag}`, 2)],
    `twin-${tag}`,
  );
  const operationId = await createOperation(
    { action: "replay", reason: "twins", selection: { type: "ids", ids } },
    owner,
  );
  return { ids: ids as [string, string], operationId };
}

/** What a record's action wrote, with the ids and times that differ between twins taken out. */
async function written(reviewId: string, action: string) {
  const [history] = await sql(
    `SELECT actor, action, from_status::text, to_status::text, reason, details FROM review_history
      WHERE review_id = $1 AND action = $2`,
    [reviewId, action],
  );
  const [log] = await sql(
    `SELECT actor, actor_role, action, effect_key IS NOT NULL AS has_effect_key, reason, details FROM decision_log
      WHERE review_id = $1 AND action = $2`,
    [reviewId, `review.${action}`],
  );
  const [replay] = await sql(
    `SELECT revision_number, state::text, sequence_key IS NOT NULL AS keyed, sequence, created_by, operation_id::text,
            run_at <= now() AS due
       FROM replays WHERE review_id = $1`,
    [reviewId],
  );
  const [record] = await sql(`SELECT status::text, version FROM review_records WHERE id = $1`, [reviewId]);
  const scrub = (details: Record<string, unknown> | undefined) =>
    details && { ...details, replayId: typeof details.replayId, runAt: typeof details.runAt };
  return {
    history: history && { ...history, details: scrub(history.details) },
    log: log && { ...log, details: scrub(log.details) },
    replay,
    record,
  };
}

describe("batched actions write what the single action writes", () => {
  it("replay", async () => {
    const { ids, operationId } = await twins();
    const single = await performAction(
      ids[0],
      { action: "replay", expectedVersion: 1, reason: "twins", checkDone: true },
      owner,
      { operationId },
    );
    expect(single).toMatchObject({ ok: true });
    const batch = await db().$transaction(async (tx) => {
      const out = await replayBatch(
        tx,
        operationId,
        [{ position: 2, reviewId: ids[1], frozenVersion: 1 }],
        owner,
        "twins",
      );
      await appendBatchEntries(tx, out.entries, owner, "twins");
      return out.results;
    });
    expect(batch).toEqual([{ position: 2, ok: true, replayId: expect.any(String) }]);
    const [a, b] = [await written(ids[0], "replay"), await written(ids[1], "replay")];
    expect(a.history).toBeDefined();
    expect(b).toEqual(a);
    expect(a.replay).toMatchObject({ operation_id: operationId, state: "scheduled", due: true });
    expect(a.record).toEqual({ status: "replay-scheduled", version: 2 });
  });

  it("note", async () => {
    const { ids, operationId } = await twins();
    expect(
      await performAction(ids[0], { action: "note", expectedVersion: 1, reason: "twins" }, support, { operationId }),
    ).toMatchObject({ ok: true });
    await db().$transaction(async (tx) => {
      const out = await noteBatch(
        tx,
        operationId,
        [{ position: 2, reviewId: ids[1], frozenVersion: 1 }],
        support,
        "twins",
      );
      await appendBatchEntries(tx, out.entries, support, "twins");
    });
    const [a, b] = [await written(ids[0], "note"), await written(ids[1], "note")];
    expect(a.history).toBeDefined();
    // The single action records whether the check was confirmed; a bulk note confirms it.
    expect({ ...b, log: { ...b.log, details: { ...b.log.details, checkDone: false } } }).toEqual(a);
    expect(a.record).toEqual({ status: "open", version: 2 });
  });

  it("refuses what the single action refuses, with its codes, and writes nothing for those", async () => {
    const { ids, operationId } = await twins();
    await sql(`UPDATE review_records SET version = 5 WHERE id = $1`, [ids[0]]);
    await sql(`UPDATE review_records SET status = 'resolved' WHERE id = $1`, [ids[1]]);
    const { results } = await db().$transaction((tx) =>
      replayBatch(
        tx,
        operationId,
        [
          { position: 1, reviewId: ids[0], frozenVersion: 1 },
          { position: 2, reviewId: ids[1], frozenVersion: 1 },
        ],
        owner,
        "twins",
      ),
    );
    expect(results).toEqual([
      { position: 1, ok: false, detail: expect.stringMatching(/^stale-version: /) },
      { position: 2, ok: false, detail: "not-allowed: replay is not possible on a resolved sequence-gap record" },
    ]);
    const asSupport = await db().$transaction((tx) =>
      replayBatch(tx, operationId, [{ position: 2, reviewId: ids[1], frozenVersion: 1 }], support, "twins"),
    );
    expect(asSupport.entries).toEqual([]);
    expect(asSupport.results).toEqual([{ position: 2, ok: false, detail: "forbidden: role support may not replay" }]);
    expect(await sql(`SELECT 1 FROM replays WHERE review_id = ANY($1::uuid[])`, [ids])).toEqual([]);
    expect(
      await sql(`SELECT 1 FROM decision_log WHERE action = 'review.replay' AND review_id = ANY($1::uuid[])`, [ids]),
    ).toEqual([]);
  });
});
