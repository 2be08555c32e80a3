/**
 * The controls of a scheduled replay (ADR 0028): run-now, reschedule, unschedule. Each is an
 * action (reason, expectedVersion, version bump, history, decision log), owner only, refused
 * while a consumer claims the replay, refused for a replay a bulk operation owns, and unschedule
 * is safe whichever action scheduled the replay.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { POST as claim } from "@/app/api/v1/replays/claim/route";
import { verifyDecisionLog } from "@/lib/audit";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const tokens: Record<string, string> = {};
async function as(role: string) {
  tokens[role] ??= await tokenFor(role as never);
  return tokens[role]!;
}

const unique = () => Math.random().toString(36).slice(2, 10);

/** A fresh record of its own kind (claims in one test never see another's replays). */
async function record(category: string, sequence = 4, kind?: string) {
  const tag = unique();
  const message = {
    id: `msg-${tag}`,
    // A kind of its own, unless the test needs a registered one (a correction is validated).
    kind: kind ?? `controls.${tag}`,
    effectKey: `fx-${tag}`,
    sequenceKey: `key-${tag}`,
    sequence,
    payload: { invoiceId: tag, schema: "2021-03" },
  };
  const created = await call(report, {
    token: await as("consumer"),
    body: { category, reason: category, requiredCheck: "look at it", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, kind: message.kind, message };
}

async function action(role: string, id: string, body: Record<string, unknown>) {
  return call(act, { token: await as(role), params: { id }, body });
}

async function versionOf(id: string): Promise<number> {
  return (await sql(`SELECT version FROM review_records WHERE id = $1`, [id]))[0].version;
}

const later = (ms = 3_600_000) => new Date(Date.now() + ms).toISOString();

/** A record whose replay waits an hour, scheduled by a plain replay. */
async function scheduled(category = "manual-review") {
  const r = await record(category);
  const res = await action("owner", r.id, {
    action: "replay",
    expectedVersion: 1,
    reason: "scheduled",
    checkDone: true,
    runAt: later(),
  });
  expect(res.status).toBe(200);
  return { ...r, replayId: res.body.replays[0].id as string };
}

const claimFor = async (kind: string) =>
  call(claim, { token: await as("consumer"), body: { consumer: "worker-1", kinds: [kind] } });

async function logOf(id: string) {
  return sql(`SELECT action, reason, actor_role, details FROM decision_log WHERE review_id = $1 ORDER BY seq`, [id]);
}

describe("run-now and reschedule", () => {
  it("run-now moves the replay to now: a consumer can claim it at once; history and log say so", async () => {
    const r = await scheduled();
    expect((await claimFor(r.kind)).body.items, "not due before run-now").toHaveLength(0);
    const res = await action("owner", r.id, { action: "run-now", expectedVersion: 2, reason: "customer waiting" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "replay-scheduled", version: 3 });
    expect(Date.parse(res.body.replays[0].runAt)).toBeLessThanOrEqual(Date.now());
    expect(res.body.history.at(-1)).toMatchObject({
      action: "run-now",
      reason: "customer waiting",
      fromStatus: "replay-scheduled",
      toStatus: "replay-scheduled",
      details: { replayId: r.replayId },
    });
    const log = await logOf(r.id);
    expect(log.at(-1)).toMatchObject({ action: "review.run-now", reason: "customer waiting", actor_role: "owner" });
    expect(log.at(-1)!.details).toMatchObject({ replayId: r.replayId, version: 3 });
    const claimed = await claimFor(r.kind);
    expect(claimed.body.items.map((i: { reviewId: string }) => i.reviewId)).toEqual([r.id]);
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("reschedule moves the replay to the given time (UTC) and keeps it scheduled", async () => {
    const r = await scheduled();
    const runAt = new Date(Date.now() + 7_200_000);
    // Given with an offset, stored and answered in UTC.
    const withOffset = new Date(runAt.getTime() + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    const res = await action("owner", r.id, {
      action: "reschedule",
      expectedVersion: 2,
      reason: "after the provider's maintenance",
      runAt: withOffset,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.replays[0]).toMatchObject({ id: r.replayId, state: "scheduled", runAt: runAt.toISOString() });
    expect(res.body.history.at(-1)).toMatchObject({
      action: "reschedule",
      details: { replayId: r.replayId, runAt: runAt.toISOString() },
    });
    expect((await logOf(r.id)).at(-1)).toMatchObject({ action: "review.reschedule" });
  });

  it("reschedule needs a future runAt (400 naming runAt); run-now takes none", async () => {
    const r = await scheduled();
    for (const body of [
      { action: "reschedule", expectedVersion: 2, reason: "x" },
      { action: "reschedule", expectedVersion: 2, reason: "x", runAt: new Date(Date.now() - 60_000).toISOString() },
      { action: "reschedule", expectedVersion: 2, reason: "x", runAt: "tomorrow" },
      { action: "run-now", expectedVersion: 2, reason: "x", runAt: later() },
    ]) {
      const res = await action("owner", r.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.error.issues)).toContain("runAt");
    }
    const empty = await action("owner", r.id, { action: "run-now", expectedVersion: 2, reason: "  " });
    expect(empty.status).toBe(400);
    expect(await versionOf(r.id)).toBe(2);
  });

  it("only owners: support and auditors get 403 and nothing changes", async () => {
    const r = await scheduled();
    for (const role of ["support", "auditor"]) {
      for (const name of ["run-now", "unschedule"]) {
        const res = await action(role, r.id, { action: name, expectedVersion: 2, reason: "try" });
        expect(res.status, `${role} ${name}`).toBe(403);
      }
    }
    const [replay] = await sql(`SELECT state::text, run_at > now() AS future FROM replays WHERE id = $1`, [r.replayId]);
    expect(replay).toEqual({ state: "scheduled", future: true });
    expect(await versionOf(r.id)).toBe(2);
  });

  it("a stale version is a 409 with the fresh record; an open record has nothing to run (409)", async () => {
    const r = await scheduled();
    const stale = await action("owner", r.id, { action: "run-now", expectedVersion: 1, reason: "late" });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("stale-version");
    expect(stale.body.record).toMatchObject({ version: 2, status: "replay-scheduled" });
    const open = await record("manual-review");
    for (const name of ["run-now", "unschedule"]) {
      const res = await action("owner", open.id, { action: name, expectedVersion: 1, reason: "nothing there" });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("not-allowed");
    }
  });
});

describe("races with a consumer's claim", () => {
  it("a replay claimed first: the control is a 409 and the record is replaying", async () => {
    const r = await scheduled();
    await action("owner", r.id, { action: "run-now", expectedVersion: 2, reason: "now" });
    expect((await claimFor(r.kind)).body.items).toHaveLength(1);
    for (const name of ["run-now", "unschedule"]) {
      const res = await action("owner", r.id, { action: name, expectedVersion: 3, reason: "too late" });
      expect(res.status).toBe(409);
      expect(res.body.record.status).toBe("replaying");
    }
    const res = await action("owner", r.id, { action: "reschedule", expectedVersion: 4, reason: "x", runAt: later() });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("not-allowed");
  });

  it("a claim in progress (its replay row locked): 409 replay-claimed at once, no deadlock, nothing written", async () => {
    const r = await scheduled();
    const holder = new pg.Client({ connectionString: database.current.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM replays WHERE id = $1 FOR UPDATE`, [r.replayId]);
      for (const name of ["run-now", "unschedule"]) {
        const res = await action("owner", r.id, { action: name, expectedVersion: 2, reason: "racing" });
        expect(res.status, name).toBe(409);
        expect(res.body.error.code).toBe("replay-claimed");
      }
      const res = await action("owner", r.id, {
        action: "reschedule",
        expectedVersion: 2,
        reason: "x",
        runAt: later(),
      });
      expect(res.body.error.code).toBe("replay-claimed");
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    expect(await versionOf(r.id)).toBe(2);
    expect((await logOf(r.id)).map((l) => l.action)).toEqual(["review.reported", "review.replay"]);
  });

  it("unschedule against a claim at the same moment: exactly one wins, never both, never a 500", async () => {
    for (let i = 0; i < 8; i++) {
      const r = await scheduled();
      await action("owner", r.id, { action: "run-now", expectedVersion: 2, reason: "now" });
      const [claimed, unscheduled] = await Promise.all([
        claimFor(r.kind),
        action("owner", r.id, { action: "unschedule", expectedVersion: 3, reason: "withdraw" }),
      ]);
      expect(claimed.status).toBe(200);
      expect([200, 409]).toContain(unscheduled.status);
      const [row] = await sql(`SELECT status::text FROM review_records WHERE id = $1`, [r.id]);
      const [replay] = await sql(`SELECT state::text FROM replays WHERE id = $1`, [r.replayId]);
      if (unscheduled.status === 200) {
        expect(claimed.body.items, "an unscheduled replay is never handed out").toHaveLength(0);
        expect(row.status).toBe("open");
        expect(replay.state).toBe("cancelled");
      } else {
        expect(claimed.body.items).toHaveLength(1);
        expect(row.status).toBe("replaying");
        expect(replay.state).toBe("claimed");
      }
    }
  });
});

describe("unschedule, by the action that scheduled the replay", () => {
  async function unschedule(id: string, version: number) {
    const res = await action("owner", id, { action: "unschedule", expectedVersion: version, reason: "not yet" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  it("replay: the record is open again, the replay withdrawn and never handed out; it can be replayed again", async () => {
    const r = await scheduled();
    const body = await unschedule(r.id, 2);
    expect(body).toMatchObject({ status: "open", version: 3 });
    expect(body.replays[0]).toMatchObject({ id: r.replayId, state: "cancelled" });
    expect(body.history.at(-1)).toMatchObject({
      action: "unschedule",
      reason: "not yet",
      fromStatus: "replay-scheduled",
      toStatus: "open",
      details: { replayId: r.replayId, origin: "replay" },
    });
    const log = await logOf(r.id);
    expect(log.at(-1)).toMatchObject({ action: "review.unschedule", reason: "not yet" });
    expect(log.at(-1)!.details).toMatchObject({ origin: "replay", fromStatus: "replay-scheduled", toStatus: "open" });
    await sql(`UPDATE replays SET run_at = now() - interval '1 minute' WHERE id = $1`, [r.replayId]);
    expect((await claimFor(r.kind)).body.items).toHaveLength(0);
    const again = await action("owner", r.id, { action: "replay", expectedVersion: 3, reason: "now", checkDone: true });
    expect(again.status).toBe(200);
    expect((await claimFor(r.kind)).body.items).toHaveLength(1);
  });

  it("correct-and-replay: the corrected revision stays, and the next replay sends it", async () => {
    // The only record of this file with a registered kind, so its claim sees no other test's replay.
    const r = await record("manual-review", 4, "invoice.reminder");
    const corrected = await action("owner", r.id, {
      action: "correct-and-replay",
      expectedVersion: 1,
      reason: "fix",
      checkDone: true,
      payload: { invoiceId: "fixed", schema: "2021-03" },
      runAt: later(),
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    const body = await unschedule(r.id, 2);
    expect(body.status).toBe("open");
    expect(body.revisions).toHaveLength(1);
    expect(body.history.at(-1).details).toMatchObject({ origin: "correct-and-replay" });
    await action("owner", r.id, { action: "replay", expectedVersion: 3, reason: "again", checkDone: true });
    const claimed = await claimFor(r.kind);
    expect(claimed.body.items[0].envelope.payload.invoiceId).toBe("fixed");
  });

  it("confirm-not-applied: the journal stays cleared; the open record offers no replay, only the provider's answers", async () => {
    const r = await record("effect-result-unknown");
    await sql(`INSERT INTO effect_journal (effect_key, state, sequence_key, sequence) VALUES ($1, 'unknown', $2, 4)`, [
      r.message.effectKey,
      r.message.sequenceKey,
    ]);
    const confirmed = await action("owner", r.id, {
      action: "confirm-not-applied",
      expectedVersion: 1,
      reason: "provider has nothing",
      checkDone: true,
      runAt: later(),
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const body = await unschedule(r.id, 2);
    expect(body).toMatchObject({ status: "open", category: "effect-result-unknown", journal: null });
    expect(body.history.at(-1).details).toMatchObject({ origin: "confirm-not-applied" });
    // A replay without asking the provider again stays refused: the rule of the category holds.
    const replay = await action("owner", r.id, { action: "replay", expectedVersion: 3, reason: "x", checkDone: true });
    expect(replay.status).toBe(409);
    const applied = await action("support", r.id, {
      action: "confirm-applied",
      expectedVersion: 3,
      reason: "it did arrive after all",
      checkDone: true,
      providerRef: "prov-1",
    });
    expect(applied.status).toBe(200);
    expect(applied.body.journal).toMatchObject({ state: "applied" });
  });

  it("skip-gap: the skipped range stays declared lost; the record waits as a ready gap", async () => {
    const r = await record("sequence-gap", 4);
    const skipped = await action("owner", r.id, {
      action: "skip-gap",
      expectedVersion: 1,
      reason: "1-3 are lost",
      checkDone: true,
    });
    expect(skipped.status, JSON.stringify(skipped.body)).toBe(200);
    const body = await unschedule(r.id, 2);
    expect(body).toMatchObject({ status: "open", ready: true, sequenceState: { lastSequence: 3 } });
    expect(body.history.at(-1).details).toMatchObject({ origin: "skip-gap" });
    const fresh = await call(detail, { token: await as("owner"), params: { id: r.id } });
    expect(fresh.body.replays.map((x: { state: string }) => x.state)).toEqual(["cancelled"]);
  });

  it("a replay a bulk operation owns is refused (409 operation-replay): its accounting stays whole", async () => {
    const r = await scheduled();
    const [op] = await sql(
      `INSERT INTO bulk_operations (action, state, reason, selection, total, created_by, created_role, rate_per_second)
       VALUES ('replay', 'running', 'test', '{"type":"ids"}', 1, 'token:test', 'owner', 1) RETURNING id::text AS id`,
    );
    await sql(`UPDATE replays SET operation_id = $2 WHERE id = $1`, [r.replayId, op.id]);
    for (const body of [
      { action: "run-now", expectedVersion: 2, reason: "x" },
      { action: "unschedule", expectedVersion: 2, reason: "x" },
      { action: "reschedule", expectedVersion: 2, reason: "x", runAt: later() },
    ]) {
      const res = await action("owner", r.id, body);
      expect(res.status, body.action).toBe(409);
      expect(res.body.error.code).toBe("operation-replay");
      expect(res.body.error.message).toContain(op.id);
    }
    expect(await versionOf(r.id)).toBe(2);
  });
});
