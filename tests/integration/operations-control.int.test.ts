/**
 * An operation's controls while it runs (docs/operations.md): the canary stop, the auto-pause,
 * an owner's pause, abort, runAt, an owner cancelling a record whose replay waits, and the claim
 * gate that holds a paused operation's replays back from consumers. Each test replays records
 * of a kind of its own through a real consumer (kindConsumer) driven step by step, so what is
 * claimed and when is under the test's control.
 */
import { describe, expect, it } from "vitest";
import { type Actor } from "@/lib/access";
import { verifyDecisionLog } from "@/lib/audit";
import { dispatchDue, dispatchStep, performAction } from "@/lib/actions";
import { claimDueReplays, reportReplayOutcome } from "@/lib/replays";
import { setupConsumerTest } from "../support/consumer";
import { withClient } from "../support/database";
import {
  consumerActor,
  dispatchUntil,
  envelope,
  kindConsumer,
  newTag,
  operationsApi,
  reportGaps,
} from "../support/operations";

const consumerTest = await setupConsumerTest("operations-control");
const { redisUp, sql, provider } = consumerTest;
const api = operationsApi();
const owner: Actor = { kind: "user", id: "owner-ctl", label: "user:owner@ctl.test", role: "owner" };

/**
 * `specs` records of a fresh kind, one key each: "apply" has its predecessor applied (last 1),
 * "gap" has nothing (its replay is held again). Returns the kind, cause and record ids in order.
 */
async function scenario(specs: ("apply" | "gap")[]) {
  const tag = newTag();
  const kind = `ops.ctl.${tag}`;
  const cause = `ctl-${tag}`;
  const keys = specs.map((_, i) => `inv-${tag}-${i}`);
  const applyKeys = keys.filter((_, i) => specs[i] === "apply");
  await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) SELECT k, 1 FROM unnest($1::text[]) AS k`, [
    applyKeys,
  ]);
  const ids = await reportGaps(
    keys.map((k) => envelope(kind, k, 2)),
    cause,
  );
  const selection = { type: "group", group: { kind, reason: "sequence-gap", errorClass: cause } };
  return { kind, cause, keys, ids, selection };
}

/** Dispatches one record at a time until `n` of the operation's records are dispatched. */
async function dispatchExactly(operationId: string, n: number) {
  for (;;) {
    const [{ dispatched }] = await sql(`SELECT dispatched FROM bulk_operations WHERE id = $1`, [operationId]);
    if (dispatched >= n) return;
    const step = await dispatchStep(operationId, 1);
    if (step.type === "wait") await new Promise((r) => setTimeout(r, step.ms));
    if (step.type === "idle") throw new Error(`the operation stopped dispatching at ${dispatched}`);
  }
}

async function replaysOf(operationId: string) {
  return sql<{ id: string; review_id: string; state: string; detail: string | null }>(
    `SELECT id::text, review_id::text, state::text, detail FROM replays WHERE operation_id = $1 ORDER BY created_at, id`,
    [operationId],
  );
}

async function logOf(operationId: string) {
  return sql<{ action: string; actor: string; review_id: string | null; reason: string | null; details: any }>(
    `SELECT action, actor, review_id::text, reason, details FROM decision_log
      WHERE details->>'operationId' = $1 ORDER BY seq`,
    [operationId],
  );
}

const claimProbe = (kind: string, limit = 50) =>
  claimDueReplays({ consumer: `probe-${kind}`, kinds: [kind], limit, leaseSeconds: 30 }, consumerActor);

describe.skipIf(!redisUp)("operation controls", () => {
  it("a canary stops after its first records until an owner continues; its replays run meanwhile", async () => {
    const s = await scenario(Array(12).fill("apply"));
    const { id } = await api.start({ selection: s.selection, canarySize: 5, ratePerSecond: 1000, autoPause: null });
    const stopped = await dispatchUntil(async () => {
      const v = await api.view(id);
      return v.state !== "running" ? v : undefined;
    });
    expect(stopped).toMatchObject({
      state: "awaiting-continue",
      canaryPassed: false,
      progress: { dispatched: 5, byState: { dispatched: 5, pending: 7 } },
      controls: ["dry-run", "pause", "resume", "abort"],
    });
    const canary = (await logOf(id)).filter((e) => e.action === "operation.canary-reached");
    expect(canary).toEqual([
      expect.objectContaining({ actor: "system:operations", details: { operationId: id, canarySize: 5 } }),
    ]);
    for (let i = 0; i < 3; i++) await dispatchDue();
    expect((await replaysOf(id)).length, "nothing more is dispatched while waiting").toBe(5);

    // The canary's replays are not held back: a consumer runs them.
    const consumer = kindConsumer(s.kind, provider.url, 20);
    expect(await consumer.replays!.runOnce()).toBe(5);
    const checked = await api.view(id);
    expect(checked.progress).toMatchObject({ outcomes: 5, heldAgain: 0, byState: { applied: 5, pending: 7 } });
    // A fresh dry run of what is left, then continue.
    const dry = await api.dryRun(id);
    expect(dry.status).toBe(200);
    expect(dry.body.dryRun.counts).toEqual({ "would-apply": 7 });
    const resumed = await api.control("resume", id, "the canary's five were sent once each");
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ state: "running", canaryPassed: true, pauseReason: null });

    await dispatchUntil(async () => (await api.view(id)).progress.dispatched === 12);
    const done = await dispatchUntil(async () => {
      await consumer.replays!.runOnce();
      const v = await api.view(id);
      return v.state === "completed" ? v : undefined;
    });
    expect(done.progress).toEqual({
      dispatched: 12,
      outcomes: 12,
      heldAgain: 0,
      byState: { applied: 12 },
      outcome: { applied: 12, heldAgain: 0, withdrawn: 0, skipped: 0, neverSent: 0, waiting: 0 },
    });
    const log = await logOf(id);
    expect(log.filter((e) => e.action === "operation.canary-reached")).toHaveLength(1);
    expect(log.filter((e) => e.action === "operation.resumed")).toEqual([
      expect.objectContaining({
        reason: "the canary's five were sent once each",
        details: { operationId: id, fromState: "awaiting-continue" },
      }),
    ]);
    expect(log.at(-1)).toMatchObject({ action: "operation.completed", details: { dispatched: 12, outcomes: 12 } });
    const sent = provider.sent.filter((e) => s.keys.includes(String(e.request.metadata?.sequenceKey)));
    expect(sent.map((e) => e.idempotencyKey).sort()).toEqual(s.keys.map((k) => `${k}:reminder-2`).sort());
  });

  it("auto-pauses when too many replays end held again; its unclaimed replays are held back until it resumes", async () => {
    // Every fifth record can apply; the rest are held again (their predecessor is missing).
    const specs = Array.from({ length: 30 }, (_, i) => (i % 5 === 4 ? "apply" : "gap") as "apply" | "gap");
    const s = await scenario(specs);
    const { id } = await api.start({
      selection: s.selection,
      ratePerSecond: 1000,
      autoPause: { threshold: 0.2, minOutcomes: 10 },
    });
    await dispatchExactly(id, 15);
    const consumer = kindConsumer(s.kind, provider.url, 12);
    expect(await consumer.replays!.runOnce()).toBe(12);

    const paused = await api.view(id);
    expect(paused.state).toBe("paused");
    // The first twelve dispatched hold two or three that apply (claims of one moment go in any order).
    expect(paused.progress).toMatchObject({ dispatched: 15, outcomes: 12 });
    expect(paused.progress.heldAgain).toBeGreaterThanOrEqual(9);
    expect(paused.progress.byState).toMatchObject({ pending: 15, dispatched: 3 });
    expect((paused.progress.byState["held-again"] ?? 0) + (paused.progress.byState.applied ?? 0)).toBe(12);
    const why =
      /^auto-pause: (\d+) of (\d+) replays ended held again since the last start \((\d+\.\d)% > 20\.0%\)$/.exec(
        paused.pauseReason ?? "",
      );
    expect(why, String(paused.pauseReason)).not.toBeNull();
    const [held, outcomes] = [Number(why![1]), Number(why![2])];
    expect(outcomes).toBeGreaterThanOrEqual(10);
    expect(held / outcomes).toBeGreaterThan(0.2);
    expect(Number(why![3])).toBeCloseTo((held / outcomes) * 100, 1);
    const autoPaused = (await logOf(id)).filter((e) => e.action === "operation.auto-paused");
    expect(autoPaused).toEqual([
      expect.objectContaining({
        actor: "system:operations",
        reason: paused.pauseReason,
        details: { operationId: id, outcomes, heldAgain: held, threshold: 0.2 },
      }),
    ]);

    // Nothing more is dispatched, and the three replays no consumer took yet are held back.
    for (let i = 0; i < 3; i++) await dispatchDue();
    expect((await api.view(id)).progress.byState.pending).toBe(15);
    const waiting = (await replaysOf(id)).filter((r) => r.state === "scheduled");
    expect(waiting).toHaveLength(3);
    expect(await claimProbe(s.kind), "a paused operation's replays are not handed out").toEqual([]);
    expect(await consumer.replays!.runOnce()).toBe(0);
    // The records held again are open again, one attempt more.
    const reopened = await sql(
      `SELECT status::text, attempts FROM review_records rr JOIN bulk_operation_items i ON i.review_id = rr.id
        WHERE i.operation_id = $1 AND i.state = 'held-again'`,
      [id],
    );
    expect(reopened.every((r) => r.status === "open" && r.attempts === 2)).toBe(true);

    const resumed = await api.control("resume", id, "the gaps are known; go on");
    expect(resumed.body).toMatchObject({ state: "running", pauseReason: null });
    const claimed = await claimProbe(s.kind);
    expect(claimed.map((c) => c.replayId).sort()).toEqual(waiting.map((r) => r.id).sort());
    await api.control("abort", id, "done testing");
  });

  it("a resume starts auto-pause's count afresh, and may change or turn off auto-pause", async () => {
    const specs = Array.from({ length: 12 }, () => "gap" as const);
    const s = await scenario(specs);
    const { id } = await api.start({
      selection: s.selection,
      ratePerSecond: 1000,
      autoPause: { threshold: 0.5, minOutcomes: 4 },
    });
    await dispatchExactly(id, 6);
    const consumer = kindConsumer(s.kind, provider.url, 4);
    expect(await consumer.replays!.runOnce()).toBe(4);
    expect((await api.view(id)).state).toBe("paused");

    // Resumed as it was: the four held-again outcomes before no longer count.
    expect((await api.control("resume", id, "known gaps")).status).toBe(200);
    const [counts] = await sql(
      `SELECT outcomes, held_again, auto_pause_outcomes, auto_pause_held_again FROM bulk_operations WHERE id = $1`,
      [id],
    );
    expect(counts).toEqual({ outcomes: 4, held_again: 4, auto_pause_outcomes: 0, auto_pause_held_again: 0 });
    expect(await consumer.replays!.runOnce()).toBe(2);
    expect((await api.view(id)).state, "two new outcomes are below the minimum of four").toBe("running");

    // Pause, then resume with auto-pause off: everything runs to the end although all are held again.
    expect((await api.control("pause", id, "look")).status).toBe(200);
    const bad = await api.control("resume", id, "x", "owner", { autoPause: { threshold: 2 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("autoPause.threshold");
    const off = await api.control("resume", id, "all of them are gaps; hold them all", "owner", { autoPause: null });
    expect(off.body).toMatchObject({ state: "running", autoPause: null });
    const done = await dispatchUntil(async () => {
      await consumer.replays!.runOnce();
      const v = await api.view(id);
      return v.state === "completed" ? v : undefined;
    });
    expect(done.progress).toMatchObject({ outcomes: 12, heldAgain: 12 });
    const resumed = (await logOf(id)).filter((e) => e.action === "operation.resumed");
    expect(resumed.map((e) => (e.details as { autoPause?: unknown }).autoPause)).toEqual(
      expect.arrayContaining([undefined, null]),
    );
  });

  it("an owner's pause stops dispatching and holds back unclaimed replays; resume goes on to completion", async () => {
    const s = await scenario(Array(6).fill("apply"));
    const { id } = await api.start({ selection: s.selection, ratePerSecond: 1000 });
    await dispatchExactly(id, 3);
    const paused = await api.control("pause", id, "checking the provider's dashboard");
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: "paused", controls: ["dry-run", "resume", "abort"] });
    expect(paused.body.pauseReason).toMatch(/^paused by token:owner-\w+: checking the provider's dashboard$/);
    expect((await api.control("pause", id, "again")).status).toBe(409);
    for (let i = 0; i < 3; i++) await dispatchDue();
    expect((await replaysOf(id)).length).toBe(3);
    expect(await claimProbe(s.kind)).toEqual([]);

    expect((await api.control("resume", id, "provider is fine")).status).toBe(200);
    const consumer = kindConsumer(s.kind, provider.url);
    const done = await dispatchUntil(async () => {
      await consumer.replays!.runOnce();
      const v = await api.view(id);
      return v.state === "completed" ? v : undefined;
    });
    expect(done.progress.byState).toEqual({ applied: 6 });
    const actions = (await logOf(id)).map((e) => e.action).filter((a) => a.startsWith("operation."));
    expect(actions.filter((a) => a !== "operation.record-selected")).toEqual([
      "operation.created",
      "operation.confirmed",
      "operation.paused",
      "operation.resumed",
      "operation.completed",
    ]);
  });

  it("abort mid-operation: pending records are left, unclaimed replays withdrawn (records open again), claimed ones finish", async () => {
    const s = await scenario(Array(20).fill("apply"));
    const { id } = await api.start({ selection: s.selection, ratePerSecond: 1000, autoPause: null });
    await dispatchExactly(id, 8);
    const consumer = kindConsumer(s.kind, provider.url, 3);
    expect(await consumer.replays!.runOnce()).toBe(3);
    const inFlight = await claimProbe(s.kind, 2);
    expect(inFlight).toHaveLength(2);
    const scheduled = (await replaysOf(id)).filter((r) => r.state === "scheduled");
    expect(scheduled).toHaveLength(3);
    const before = new Map(
      (
        await sql(`SELECT id::text, version, status::text FROM review_records WHERE id = ANY($1::uuid[])`, [
          scheduled.map((r) => r.review_id),
        ])
      ).map((r) => [r.id, r]),
    );
    expect([...before.values()].every((r) => r.status === "replay-scheduled")).toBe(true);

    const aborted = await api.control("abort", id, "the provider is rejecting reminders");
    expect(aborted.status, JSON.stringify(aborted.body)).toBe(200);
    expect(aborted.body).toMatchObject({
      state: "aborted",
      controls: [],
      progress: { dispatched: 8, byState: { applied: 3, dispatched: 2, withdrawn: 3, "not-dispatched": 12 } },
    });
    const withdrawn = (await replaysOf(id)).filter((r) => scheduled.some((w) => w.id === r.id));
    expect(withdrawn.map((r) => [r.state, r.detail])).toEqual(
      scheduled.map(() => ["cancelled", "withdrawn: the operation was aborted"]),
    );
    const records = await sql(`SELECT id::text, version, status::text FROM review_records WHERE id = ANY($1::uuid[])`, [
      scheduled.map((r) => r.review_id),
    ]);
    for (const r of records) {
      expect(r.status).toBe("open");
      expect(r.version).toBe(before.get(r.id)!.version + 1);
      const [last] = await sql(
        `SELECT action, from_status::text, to_status::text, reason, details FROM review_history
          WHERE review_id = $1 ORDER BY id DESC LIMIT 1`,
        [r.id],
      );
      expect(last).toMatchObject({
        action: "replay-withdrawn",
        from_status: "replay-scheduled",
        to_status: "open",
        reason: "the provider is rejecting reminders",
        details: { operationId: id },
      });
    }
    const log = await logOf(id);
    const entries = log.filter((e) => e.action === "review.replay-withdrawn");
    expect(entries.map((e) => e.review_id).sort()).toEqual(records.map((r) => r.id).sort());
    for (const e of entries) {
      const record = records.find((r) => r.id === e.review_id)!;
      expect(e.details).toMatchObject({ operationId: id, toStatus: "open", version: record.version });
    }
    expect(log.find((e) => e.action === "operation.aborted")!.details).toMatchObject({
      fromState: "running",
      withdrawn: 3,
    });

    // Nothing is dispatched afterwards, nothing withdrawn is handed out; the claimed replays finish.
    for (let i = 0; i < 3; i++) await dispatchDue();
    expect((await replaysOf(id)).length).toBe(8);
    expect(await claimProbe(s.kind)).toEqual([]);
    for (const item of inFlight) {
      const result = await reportReplayOutcome(item.replayId, { outcome: "applied", detail: "applied" }, consumerActor);
      expect(result.ok).toBe(true);
    }
    const after = await api.view(id);
    expect(after.state, "an aborted operation is never completed").toBe("aborted");
    expect(after.progress).toMatchObject({ outcomes: 5, byState: { applied: 5, withdrawn: 3, "not-dispatched": 12 } });
    expect((await verifyDecisionLog(consumerTest.database.current.url)).ok).toBe(true);
  });

  it("an owner cancelling a record whose replay waits ends its item, and an operation with nothing left completes", async () => {
    const s = await scenario(["apply"]);
    const { id } = await api.start({ selection: s.selection, canarySize: 1 });
    await dispatchUntil(async () => (await api.view(id)).state === "awaiting-continue");
    const [record] = await sql(`SELECT version FROM review_records WHERE id = $1`, [s.ids[0]]);
    const result = await performAction(
      s.ids[0]!,
      { action: "cancel", reason: "customer paid meanwhile", expectedVersion: record.version, checkDone: true },
      owner,
    );
    expect(result).toMatchObject({ ok: true });
    const [item] = await api.allItems(id);
    expect(item).toMatchObject({
      state: "cancelled",
      detail: "an owner cancelled the record while its replay waited",
      record: { status: "cancelled" },
    });
    expect((await replaysOf(id)).map((r) => r.state)).toEqual(["cancelled"]);
    const view = await api.view(id);
    expect(view.state, "every record has its outcome").toBe("completed");
    expect((await logOf(id)).at(-1)).toMatchObject({ action: "operation.completed" });
  });

  it("dispatches nothing before runAt", async () => {
    const s = await scenario(["apply", "apply"]);
    const runAt = new Date(Date.now() + 1500);
    const { id } = await api.start({ selection: s.selection, runAt: runAt.toISOString() });
    expect((await api.view(id)).runAt).toBe(runAt.toISOString());
    await dispatchDue();
    expect((await replaysOf(id)).length).toBe(0);
    await dispatchUntil(async () => (await api.view(id)).progress.dispatched === 2, 10_000);
    const [first] = await sql(`SELECT min(created_at) AS at FROM replays WHERE operation_id = $1`, [id]);
    expect(new Date(first.at).getTime()).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it("a dry run after the canary counts the canary's replays still waiting as the operation's own earlier replays", async () => {
    const tag = newTag();
    const kind = `ops.ctl.${tag}`;
    const cause = `ctl-${tag}`;
    const key = `inv-${tag}-chain`;
    await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 1)`, [key]);
    await reportGaps(
      [2, 3, 4, 5].map((n) => envelope(kind, key, n)),
      cause,
    );
    const selection = { type: "group", group: { kind, reason: "sequence-gap", errorClass: cause } };
    const { id, dryRun } = await api.start({ selection, canarySize: 2, ratePerSecond: 1000 });
    expect(dryRun.dryRun!.counts).toEqual({ "would-apply": 4 });
    await dispatchUntil(async () => (await api.view(id)).state === "awaiting-continue");
    // 2 and 3 are dispatched, no consumer has run them yet: 4 and 5 still follow them.
    const again = await api.dryRun(id);
    expect(again.body.dryRun.counts).toEqual({ "would-apply": 2 });
    const consumer = kindConsumer(kind, provider.url);
    await api.control("resume", id, "canary looks right");
    const done = await dispatchUntil(async () => {
      await consumer.replays!.runOnce();
      const v = await api.view(id);
      return v.state === "completed" ? v : undefined;
    });
    expect(done.progress.byState, "what the dry run said").toEqual({ applied: 4 });
    const sent = provider.sent
      .filter((e) => e.request.metadata?.sequenceKey === key)
      .map((e) => e.request.metadata?.sequence);
    expect(sent).toEqual([2, 3, 4, 5]);
  });

  it("a dry run while outcomes arrive (awaiting-continue) answers with the numbers, not a database error", async () => {
    const s = await scenario(Array(6).fill("apply"));
    const { id } = await api.start({ selection: s.selection, canarySize: 2, ratePerSecond: 1000 });
    await dispatchUntil(async () => (await api.view(id)).state === "awaiting-continue");
    const [replay] = (await replaysOf(id)).slice(0, 1);
    // An outcome's transaction on a canary item, open while the dry run reads and writes.
    await withClient(consumerTest.database.current.url, async (outcome) => {
      await outcome.query("BEGIN");
      await outcome.query(
        `UPDATE bulk_operation_items SET state = 'applied', updated_at = now() WHERE replay_id = $1`,
        [replay!.id],
      );
      const dry = api.dryRun(id);
      await new Promise((r) => setTimeout(r, 300));
      await outcome.query("COMMIT");
      const res = await dry;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.dryRun.counts).toEqual({ "would-apply": 4 });
    });
    const items = await api.allItems(id);
    expect(items.filter((i) => i.state !== "pending").every((i) => i.verdict === null)).toBe(true);
    expect(items.filter((i) => i.state === "pending").every((i) => i.verdict === "would-apply")).toBe(true);
    await api.control("abort", id, "done testing");
  });

  it("a dry run overtaken by a resume and a dispatch answers 409 not-allowed, not a database error", async () => {
    const s = await scenario(Array(4).fill("apply"));
    const { id } = await api.start({ selection: s.selection, ratePerSecond: 1000 });
    await api.control("pause", id, "look again");
    const [pending] = await api.allItems(id, "state=pending&limit=1");
    await withClient(consumerTest.database.current.url, async (other) => {
      // What a resume and the dispatcher's next step write (the operation's row first, as they
      // do), committed while the dry run runs.
      await other.query("BEGIN");
      await other.query(`UPDATE bulk_operations SET state = 'running' WHERE id = $1`, [id]);
      await other.query(
        `UPDATE bulk_operation_items SET state = 'skipped', detail = 'test', updated_at = now()
          WHERE operation_id = $1 AND position = $2`,
        [id, pending!.position],
      );
      const dry = api.dryRun(id);
      await new Promise((r) => setTimeout(r, 300));
      await other.query("COMMIT");
      const res = await dry;
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.code).toBe("not-allowed");
    });
    await api.control("abort", id, "done testing");
  });
});
