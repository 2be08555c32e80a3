import { describe, expect, it } from "vitest";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { verifyDecisionLog } from "@/lib/audit";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let n = 0;
/** A fresh record of the given category, reported through the API; unique keys per call. */
async function record(category: string, reason: string, overrides: Record<string, unknown> = {}, sequence = 4) {
  n += 1;
  const tag = `${n}-${Math.random().toString(36).slice(2, 8)}`;
  const message = {
    id: `msg-${tag}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${tag}:reminder`,
    sequenceKey: `invoice-${tag}`,
    sequence,
    payload: { invoiceId: tag, schema: "2021-03" },
    ...overrides,
  };
  const consumer = await tokenFor("consumer");
  const created = await call(report, {
    token: consumer,
    body: { category, reason, requiredCheck: "look at it", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, message };
}

const tokens: Record<string, string> = {};
async function as(role: string) {
  tokens[role] ??= await tokenFor(role as never);
  return tokens[role]!;
}

async function action(role: string, id: string, body: Record<string, unknown>) {
  return call(act, { token: await as(role), params: { id }, path: `/api/v1/reviews/${id}/actions`, body });
}

async function footprint(id: string) {
  const [row] = await sql(
    `SELECT (SELECT version FROM review_records WHERE id = $1) AS version,
            (SELECT count(*)::int FROM review_history WHERE review_id = $1) AS history,
            (SELECT count(*)::int FROM review_revisions WHERE review_id = $1) AS revisions,
            (SELECT count(*)::int FROM replays WHERE review_id = $1) AS replays,
            (SELECT count(*)::int FROM decision_log WHERE review_id = $1 AND action <> 'authorization.refused') AS log`,
    [id],
  );
  return row;
}

describe("POST /api/v1/reviews/{id}/actions", () => {
  it("note: support adds a history entry, the version goes up, the status stays", async () => {
    const r = await record("manual-review", "invalid-payload");
    const res = await action("support", r.id, { action: "note", expectedVersion: 1, reason: "asked the team" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: r.id, status: "open", version: 2 });
    expect(res.body.history.at(-1)).toMatchObject({
      action: "note",
      reason: "asked the team",
      actor: expect.stringMatching(/^token:/),
    });
    const log = await sql(`SELECT action, reason FROM decision_log WHERE review_id = $1 ORDER BY seq`, [r.id]);
    expect(log.map((l) => l.action)).toEqual(["review.reported", "review.note"]);
  });

  it("a stale version is a 409 with the fresh record, and writes nothing", async () => {
    const r = await record("manual-review", "invalid-payload");
    await action("support", r.id, { action: "note", expectedVersion: 1, reason: "first" });
    const before = await footprint(r.id);
    const res = await action("owner", r.id, { action: "replay", expectedVersion: 1, reason: "late", checkDone: true });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("stale-version");
    expect(res.body.record).toMatchObject({ id: r.id, version: 2 });
    expect(await footprint(r.id)).toEqual(before);
  });

  it("two owners acting at once on the same version: exactly one succeeds, the other sees the conflict", async () => {
    const r = await record("sequence-gap", "sequence-gap");
    const [a, b] = await Promise.all([
      action("owner", r.id, { action: "replay", expectedVersion: 1, reason: "owner A", checkDone: true }),
      action("owner", r.id, { action: "cancel", expectedVersion: 1, reason: "owner B", checkDone: true }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.body.error.code).toBe("stale-version");
    expect((await footprint(r.id)).version).toBe(2);
  });

  it("replay: schedules the latest revision at the given time, same id and effectKey", async () => {
    const r = await record("manual-review", "retry-limit");
    const runAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await action("owner", r.id, {
      action: "replay",
      expectedVersion: 1,
      reason: "ledger is up",
      checkDone: true,
      runAt,
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("replay-scheduled");
    expect(res.body.replays).toHaveLength(1);
    expect(res.body.replays[0]).toMatchObject({ state: "scheduled", revisionNumber: 0, runAt });
  });

  it("refuses to replay an effect-result-unknown record before the provider is asked (409), writing nothing", async () => {
    const r = await record("effect-result-unknown", "effect-result-unknown");
    const before = await footprint(r.id);
    for (const body of [
      { action: "replay", expectedVersion: 1, reason: "just do it", checkDone: true },
      {
        action: "correct-and-replay",
        expectedVersion: 1,
        reason: "x",
        checkDone: true,
        payload: { schema: "2021-03", invoiceId: "1" },
      },
      { action: "skip-gap", expectedVersion: 1, reason: "x", checkDone: true },
    ]) {
      const res = await action("owner", r.id, body);
      expect(res.status, body.action).toBe(409);
      expect(res.body.error.code).toBe("not-allowed");
    }
    expect(await footprint(r.id)).toEqual(before);
  });

  it("a role that may not take the action gets 403, logged as a refused authorization", async () => {
    const r = await record("manual-review", "invalid-payload");
    const before = await footprint(r.id);
    const res = await action("support", r.id, {
      action: "cancel",
      expectedVersion: 1,
      reason: "not mine",
      checkDone: true,
    });
    expect(res.status).toBe(403);
    const refusals = await sql(
      `SELECT actor_role, reason FROM decision_log WHERE review_id = $1 AND action = 'authorization.refused'`,
      [r.id],
    );
    expect(refusals).toEqual([{ actor_role: "support", reason: "role support may not cancel" }]);
    expect(await footprint(r.id)).toEqual(before);
    for (const role of ["auditor", "admin", "consumer"]) {
      const refused = await action(role, r.id, { action: "note", expectedVersion: 1, reason: "hi" });
      expect(refused.status, role).toBe(403);
    }
    // Refusals at the route's role check are linked to the record too.
    const linked = await sql(
      `SELECT actor_role FROM decision_log WHERE review_id = $1 AND action = 'authorization.refused' ORDER BY seq`,
      [r.id],
    );
    expect(linked.map((l) => l.actor_role)).toEqual(["support", "auditor", "admin", "consumer"]);
    expect(await footprint(r.id)).toEqual(before);
  });

  it("every action but note needs the required check confirmed, and a reason (400 naming the field)", async () => {
    const r = await record("manual-review", "invalid-payload");
    const before = await footprint(r.id);
    const noCheck = await action("owner", r.id, { action: "cancel", expectedVersion: 1, reason: "x" });
    expect(noCheck.status).toBe(400);
    expect(noCheck.body.error.issues[0].path).toBe("checkDone");
    const noReason = await action("owner", r.id, { action: "note", expectedVersion: 1, reason: "  " });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.issues[0].path).toBe("reason");
    const noVersion = await action("owner", r.id, { action: "note", reason: "x" });
    expect(noVersion.body.error.issues[0].path).toBe("expectedVersion");
    expect(await footprint(r.id)).toEqual(before);
  });

  describe("correct-and-replay", () => {
    it("refuses a payload that fails the kind's schema with 422 naming the path, writing nothing", async () => {
      const r = await record("manual-review", "invalid-payload", { payload: { schema: "2021-03", invoiceId: 417 } });
      const before = await footprint(r.id);
      const res = await action("owner", r.id, {
        action: "correct-and-replay",
        expectedVersion: 1,
        reason: "fix",
        checkDone: true,
        payload: { schema: "2021-03", invoiceId: 418 },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("invalid-payload");
      expect(res.body.error.issues[0].path).toBe("payload.invoiceId");
      expect(await footprint(r.id)).toEqual(before);
    });

    it("stores a new revision with the same id and effectKey, keeps the original, and schedules its replay", async () => {
      const r = await record("manual-review", "invalid-payload", { payload: { schema: "2021-03", invoiceId: 417 } });
      const res = await action("owner", r.id, {
        action: "correct-and-replay",
        expectedVersion: 1,
        reason: "invoice ids are strings",
        checkDone: true,
        payload: { schema: "2021-03", invoiceId: "417" },
      });
      expect(res.status).toBe(200);
      expect(res.body.revisions).toHaveLength(1);
      const revised = res.body.revisions[0].envelope;
      expect(revised).toMatchObject({
        id: r.message.id,
        effectKey: r.message.effectKey,
        payload: { invoiceId: "417" },
      });
      expect(res.body.message).toEqual(r.message); // the original stays as received
      expect(res.body.replays[0]).toMatchObject({ revisionNumber: 1, state: "scheduled" });
      expect(res.body.status).toBe("replay-scheduled");
    });

    it("may supply envelope fields the message lacked, never change present ones (422)", async () => {
      const r = await record("manual-review", "invalid-contract", { effectKey: "" });
      const change = await action("owner", r.id, {
        action: "correct-and-replay",
        expectedVersion: 1,
        reason: "try to change the id",
        checkDone: true,
        envelope: { id: "another-id" },
      });
      expect(change.status).toBe(422);
      expect(change.body.error).toMatchObject({ code: "envelope-field-present", issues: [{ path: "envelope.id" }] });
      const supply = await action("owner", r.id, {
        action: "correct-and-replay",
        expectedVersion: 1,
        reason: "the producer forgot the effect key",
        checkDone: true,
        envelope: { effectKey: `${r.message.sequenceKey}:reminder` },
      });
      expect(supply.status).toBe(200);
      expect(supply.body.effectKey).toBe(`${r.message.sequenceKey}:reminder`);
      expect(supply.body.revisions[0].envelope.id).toBe(r.message.id);
    });
  });

  describe("cancel", () => {
    it("marks the effectKey cancelled, cancels a pending replay, and consumes the slot when next in sequence", async () => {
      const r = await record("sequence-gap", "sequence-gap", {}, 4);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 3)`, [r.message.sequenceKey]);
      const scheduled = await action("owner", r.id, {
        action: "replay",
        expectedVersion: 1,
        reason: "try",
        checkDone: true,
      });
      expect(scheduled.status).toBe(200);
      const res = await action("owner", r.id, {
        action: "cancel",
        expectedVersion: 2,
        reason: "customer paid",
        checkDone: true,
      });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("cancelled");
      expect(res.body.journal).toMatchObject({ state: "cancelled", effectKey: r.message.effectKey });
      expect(res.body.replays[0].state).toBe("cancelled");
      expect(res.body.sequenceState.lastSequence).toBe(4);
    });

    it("leaves the sequence alone when the record is not next, and refuses to cancel an applied effect", async () => {
      const r = await record("sequence-gap", "sequence-gap", {}, 9);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 3)`, [r.message.sequenceKey]);
      const res = await action("owner", r.id, {
        action: "cancel",
        expectedVersion: 1,
        reason: "obsolete",
        checkDone: true,
      });
      expect(res.body.sequenceState.lastSequence).toBe(3);

      const applied = await record("manual-review", "retry-limit");
      await sql(`INSERT INTO effect_journal (effect_key, state) VALUES ($1, 'applied')`, [applied.message.effectKey]);
      const refused = await action("owner", applied.id, {
        action: "cancel",
        expectedVersion: 1,
        reason: "x",
        checkDone: true,
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("effect-applied");
    });
  });

  describe("confirm the provider's side of an effect-result-unknown", () => {
    it("confirm-applied: the journal becomes applied with the reference, the sequence advances, resolved", async () => {
      const r = await record("effect-result-unknown", "effect-result-unknown", {}, 2);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 1)`, [r.message.sequenceKey]);
      await sql(`INSERT INTO effect_journal (effect_key, state) VALUES ($1, 'unknown')`, [r.message.effectKey]);
      const missing = await action("support", r.id, {
        action: "confirm-applied",
        expectedVersion: 1,
        reason: "x",
        checkDone: true,
      });
      expect(missing.status).toBe(400);
      expect(missing.body.error.issues[0].path).toBe("providerRef");
      const res = await action("support", r.id, {
        action: "confirm-applied",
        expectedVersion: 1,
        reason: "provider dashboard shows it sent",
        checkDone: true,
        providerRef: "msg_8f2a",
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "resolved", journal: { state: "applied", providerRef: "msg_8f2a" } });
      expect(res.body.sequenceState.lastSequence).toBe(2);
      expect(res.body.replays).toHaveLength(0);
    });

    it("confirm-not-applied: the journal entry is cleared and a replay with the same key is scheduled", async () => {
      const r = await record("effect-result-unknown", "effect-result-unknown", {}, 2);
      await sql(`INSERT INTO effect_journal (effect_key, state) VALUES ($1, 'unknown')`, [r.message.effectKey]);
      const res = await action("support", r.id, {
        action: "confirm-not-applied",
        expectedVersion: 1,
        reason: "provider has no such message",
        checkDone: true,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "replay-scheduled", journal: null, effectKey: r.message.effectKey });
      expect(res.body.replays[0]).toMatchObject({ state: "scheduled", revisionNumber: 0 });
    });
  });

  describe("skip-gap", () => {
    it("declares last+1 .. sequence-1 lost, logs the range, sets last = sequence-1 and schedules the replay", async () => {
      const r = await record("sequence-gap", "sequence-gap", {}, 12);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 9)`, [r.message.sequenceKey]);
      const res = await action("owner", r.id, {
        action: "skip-gap",
        expectedVersion: 1,
        reason: "10 and 11 were never sent",
        checkDone: true,
      });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("replay-scheduled");
      expect(res.body.sequenceState.lastSequence).toBe(11);
      const [log] = await sql(`SELECT details FROM decision_log WHERE review_id = $1 AND action = 'review.skip-gap'`, [
        r.id,
      ]);
      expect(log.details.skipped).toEqual({ from: 10, to: 11 });
    });

    it("is refused (409) when the gap has closed or a predecessor is in flight", async () => {
      const closed = await record("sequence-gap", "sequence-gap", {}, 5);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 4)`, [
        closed.message.sequenceKey,
      ]);
      const a = await action("owner", closed.id, {
        action: "skip-gap",
        expectedVersion: 1,
        reason: "x",
        checkDone: true,
      });
      expect(a.status).toBe(409);
      expect(a.body.error.code).toBe("gap-closed");

      const flying = await record("sequence-gap", "sequence-gap", {}, 7);
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 4)`, [
        flying.message.sequenceKey,
      ]);
      await sql(
        `INSERT INTO effect_journal (effect_key, state, sequence_key, sequence, lease_expires_at)
         VALUES ($1, 'started', $2, 6, now() + interval '1 minute')`,
        [`other-${flying.message.effectKey}`, flying.message.sequenceKey],
      );
      const before = await footprint(flying.id);
      const b = await action("owner", flying.id, {
        action: "skip-gap",
        expectedVersion: 1,
        reason: "x",
        checkDone: true,
      });
      expect(b.status).toBe(409);
      expect(b.body.error.code).toBe("predecessor-in-flight");
      expect(await footprint(flying.id)).toEqual(before);
      const [state] = await sql(`SELECT last_sequence::int AS last FROM sequence_state WHERE sequence_key = $1`, [
        flying.message.sequenceKey,
      ]);
      expect(state.last).toBe(4);
    });
  });

  it("only notes are possible on a resolved or cancelled record", async () => {
    const r = await record("manual-review", "invalid-payload");
    await action("owner", r.id, { action: "cancel", expectedVersion: 1, reason: "done", checkDone: true });
    const replay = await action("owner", r.id, {
      action: "replay",
      expectedVersion: 2,
      reason: "again",
      checkDone: true,
    });
    expect(replay.status).toBe(409);
    const note = await action("owner", r.id, { action: "note", expectedVersion: 2, reason: "for the record" });
    expect(note.status).toBe(200);
  });

  it("unknown records are 404; the decision log stays a valid chain through all of the above", async () => {
    const missing = await action("owner", "00000000-0000-4000-8000-000000000000", {
      action: "note",
      expectedVersion: 1,
      reason: "x",
    });
    expect(missing.status).toBe(404);
    const notUuid = await action("owner", "nope", { action: "note", expectedVersion: 1, reason: "x" });
    expect(notUuid.status).toBe(404);
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });
});
