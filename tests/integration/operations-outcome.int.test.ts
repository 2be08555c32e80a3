/**
 * What became of an operation's records: `progress.outcome` folds the item
 * states into applied, held again, withdrawn, skipped, never sent and waiting, and the parts add
 * up to the total, for an operation aborted mid-way as for one that ran to the end. Also: a pause
 * is one click, its reason optional (resume and abort still need one).
 */
import { describe, expect, it } from "vitest";
import { POST as pauseRoute } from "@/app/api/v1/operations/[operationId]/pause/route";
import { operationOutcome, ITEM_STATES, type OperationView } from "@/lib/operations";
import { dispatchStep } from "@/lib/actions";
import { setupConsumerTest } from "../support/consumer";
import { call } from "../support/http";
import { envelope, kindConsumer, newTag, operationsApi, reportGaps } from "../support/operations";

const consumerTest = await setupConsumerTest("operations-outcome");
const { redisUp, sql, provider } = consumerTest;
const api = operationsApi();

/** `n` records of a fresh kind, one key each; the even ones can apply, the odd ones are held again. */
async function scenario(n: number) {
  const tag = newTag();
  const kind = `ops.out.${tag}`;
  const cause = `out-${tag}`;
  const keys = Array.from({ length: n }, (_, i) => `inv-${tag}-${i}`);
  await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) SELECT k, 1 FROM unnest($1::text[]) AS k`, [
    keys.filter((_, i) => i % 2 === 0),
  ]);
  await reportGaps(
    keys.map((k) => envelope(kind, k, 2)),
    cause,
  );
  return { kind, selection: { type: "group", group: { kind, reason: "sequence-gap", errorClass: cause } } };
}

async function dispatchExactly(operationId: string, n: number) {
  for (;;) {
    const [{ dispatched }] = await sql(`SELECT dispatched FROM bulk_operations WHERE id = $1`, [operationId]);
    if (dispatched >= n) return;
    const step = await dispatchStep(operationId, 1);
    if (step.type === "wait") await new Promise((r) => setTimeout(r, step.ms));
    if (step.type === "idle") throw new Error(`the operation stopped dispatching at ${dispatched}`);
  }
}

const sum = (outcome: OperationView["progress"]["outcome"]) => Object.values(outcome).reduce((a, b) => a + b, 0);

describe("operationOutcome", () => {
  it("puts every item state in exactly one part", () => {
    const byState = Object.fromEntries(ITEM_STATES.map((state, i) => [state, i + 1]));
    const outcome = operationOutcome(byState);
    expect(sum(outcome)).toBe(ITEM_STATES.reduce((a, _, i) => a + i + 1, 0));
    expect(outcome).toEqual({
      waiting: 1 + 2, // pending, dispatched
      applied: 3 + 4 + 7, // applied, duplicate-suppressed, done
      heldAgain: 5 + 6, // held-again, failed
      skipped: 8,
      withdrawn: 9 + 10, // cancelled, withdrawn
      neverSent: 11, // not-dispatched
    });
  });
});

describe.skipIf(!redisUp)("an operation's outcome", () => {
  it("aborted mid-way: applied, held again, withdrawn and never sent add up to the total", async () => {
    const s = await scenario(20);
    const { id } = await api.start({ selection: s.selection, ratePerSecond: 1000, autoPause: null });
    await dispatchExactly(id, 8);
    const consumer = kindConsumer(s.kind, provider.url, 5);
    expect(await consumer.replays!.runOnce()).toBe(5);

    // One click: a pause needs no reason.
    const paused = await call(pauseRoute, {
      token: await api.token("owner"),
      path: `/api/v1/operations/${id}/pause`,
      params: { operationId: id },
      body: {},
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.state).toBe("paused");
    expect(paused.body.pauseReason).toMatch(/^paused by token:owner-[^:]+$/);
    const [pauseEntry] = await sql(
      `SELECT reason FROM decision_log WHERE action = 'operation.paused' AND details->>'operationId' = $1`,
      [id],
    );
    expect(pauseEntry).toEqual({ reason: null });
    // Abort still asks why.
    const unexplained = await call(pauseRoute, {
      token: await api.token("owner"),
      path: `/api/v1/operations/${id}/pause`,
      params: { operationId: id },
      body: { reason: "" },
    });
    expect(unexplained.status, "an empty reason given is still refused").toBe(400);

    const aborted = await api.control("abort", id, "the gaps are real; stop here");
    expect(aborted.status, JSON.stringify(aborted.body)).toBe(200);
    const view = aborted.body as OperationView;
    expect(view.state).toBe("aborted");
    const { outcome, byState } = view.progress;
    expect(outcome).toEqual({
      applied: byState.applied ?? 0,
      heldAgain: byState["held-again"] ?? 0,
      withdrawn: 3,
      skipped: 0,
      neverSent: 12,
      waiting: 0,
    });
    expect(outcome.applied + outcome.heldAgain).toBe(5);
    expect(outcome.heldAgain, "the odd records' replays are held again").toBeGreaterThan(0);
    expect(sum(outcome)).toBe(view.total);
    expect(view.total).toBe(20);

    // The list answers the same split.
    const listed = await api.view(id);
    expect(listed.progress.outcome).toEqual(outcome);
  });

  it("run to the end: everything applied or held again, nothing never sent", async () => {
    const s = await scenario(6);
    const { id } = await api.start({ selection: s.selection, ratePerSecond: 1000, autoPause: null });
    await dispatchExactly(id, 6);
    const consumer = kindConsumer(s.kind, provider.url, 10);
    expect(await consumer.replays!.runOnce()).toBe(6);
    const done = await api.view(id);
    expect(done.state).toBe("completed");
    expect(done.progress.outcome).toEqual({
      applied: 3,
      heldAgain: 3,
      withdrawn: 0,
      skipped: 0,
      neverSent: 0,
      waiting: 0,
    });
  });
});

// Start again (lib/operations/start-again.ts): a new operation over what an ended one did not
// finish, frozen and dry-run like any other; what took effect is not in it, so nothing is sent twice.
describe.skipIf(!redisUp)("starting again on what an operation did not finish", () => {
  it("selects only the unfinished records, refuses a live or unknown operation, and sends no effect twice", async () => {
    const s = await scenario(20);
    const { id } = await api.start({ selection: s.selection, ratePerSecond: 1000, autoPause: null });
    await dispatchExactly(id, 8);
    const consumer = kindConsumer(s.kind, provider.url, 5);
    expect(await consumer.replays!.runOnce()).toBe(5);

    const again = { type: "unfinished", operationId: id };
    const whileLive = await api.create({ action: "replay", reason: "start again", selection: again });
    expect(whileLive.status, JSON.stringify(whileLive.body)).toBe(422);
    expect(whileLive.body.error.code).toBe("operation-not-ended");
    expect(whileLive.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["selection.operationId"]);
    const unknown = await api.create({
      action: "replay",
      reason: "start again",
      selection: { type: "unfinished", operationId: "00000000-0000-4000-8000-000000000000" },
    });
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(422);
    expect(unknown.body.error.issues[0].path).toBe("selection.operationId");

    const aborted = await api.control("abort", id, "stop here; start again later");
    expect(aborted.status, JSON.stringify(aborted.body)).toBe(200);
    const before = (aborted.body as OperationView).progress.outcome;
    const sourceItems = await api.allItems(id);
    const finished = new Set(sourceItems.filter((i) => i.state === "applied").map((i) => i.reviewId));
    const unfinished = sourceItems.filter((i) => !finished.has(i.reviewId)).map((i) => i.reviewId);
    expect(unfinished).toHaveLength(before.heldAgain + before.withdrawn + before.neverSent);

    const sentBefore = provider.snapshot();
    const next = await api.start({ selection: again, ratePerSecond: 1000, autoPause: null });
    expect(next.planned.total).toBe(unfinished.length);
    expect(next.planned.selection).toEqual(again);
    const nextItems = await api.allItems(next.id);
    expect(nextItems.map((i) => i.reviewId).sort()).toEqual([...unfinished].sort());
    expect(
      nextItems.some((i) => finished.has(i.reviewId)),
      "what took effect is not selected again",
    ).toBe(false);

    await dispatchExactly(next.id, unfinished.length);
    const rest = kindConsumer(s.kind, provider.url, 50);
    while ((await rest.replays!.runOnce()) > 0);
    const done = await api.view(next.id);
    expect(done.state).toBe("completed");
    const sentAfter = provider.snapshot();
    expect(sentAfter.repeats - sentBefore.repeats, "no effect was asked for twice").toBe(0);
    // Every even key applies once across both operations; the odd ones stay held again.
    expect(before.applied + done.progress.outcome.applied).toBe(10);
    expect(sentAfter.created - sentBefore.created).toBe(done.progress.outcome.applied);
  });
});
