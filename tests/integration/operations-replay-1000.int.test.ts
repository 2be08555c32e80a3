/**
 * The big bulk scenario: one bulk replay of 1,000 held records of one cause, run end to end by
 * the dispatcher and a real consumer against the fake email provider:
 * - 150 whose effect was applied meanwhile (the producer sent them again): suppressed, and the
 *   provider never receives them a second time;
 * - 100 on keys whose predecessor is still missing: held again, counted;
 * - 750 on 250 keys with sequences 2, 3, 4 (1 applied), reported in shuffled order: applied, each
 *   key in sequence order.
 * The dry run's numbers must be the outcomes, and the decision log must tell the whole story.
 */
import { describe, expect, it } from "vitest";
import { verifyDecisionLog } from "@/lib/audit";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually, startWorker, uniqueName } from "@/testing/worker/harness";
import { publish } from "@review-console/consumer/redis";
import { runDispatcher } from "@/lib/actions";
import { setupConsumerTest } from "../support/consumer";
import { envelope, newTag, operationsApi, reportGaps } from "../support/operations";

const consumerTest = await setupConsumerTest("operations-replay-1000");
const { redisUp, sql, provider, workers } = consumerTest;
const api = operationsApi();
const KIND = "invoice.reminder";

/** A small deterministic shuffle (the same order on every run). */
function shuffled<T>(items: T[], seed = 42): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const countBy = <T>(items: T[], key: (t: T) => string) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

describe.skipIf(!redisUp)("a bulk replay of 1,000 records of one cause", () => {
  it("suppresses applied effects, holds the gaps again (counted), applies the rest in per-key order, nothing twice", async () => {
    const tag = newTag();
    const cause = `incident-${tag}`;
    const applied = Array.from({ length: 150 }, (_, i) => `a-${tag}-${i}`);
    const gapNone = Array.from({ length: 50 }, (_, i) => `g-${tag}-${i}`);
    const gapOne = Array.from({ length: 50 }, (_, i) => `h-${tag}-${i}`);
    const chains = Array.from({ length: 250 }, (_, i) => `c-${tag}-${i}`);
    const allKeys = new Set([...applied, ...gapNone, ...gapOne, ...chains]);

    const stream = uniqueName("rc-test-ops-1000");
    const worker = startWorker(
      {
        name: "billing-worker",
        handlers: { [KIND]: emailReminderHandler(provider.url) },
        effectLeaseMs: 5000,
        gapGraceMs: 2000,
        replays: { pollMs: 20, leaseSeconds: 30, limit: 50 },
      },
      { stream, group: "workers", consumer: "w1" },
    );
    workers.push(worker);

    // What happened before the operation, through the worker: the producer's messages 1 (and
    // for `applied`, 2 again) arrived and were applied.
    const before = [
      ...applied.flatMap((k) => [envelope(KIND, k, 1), envelope(KIND, k, 2)]),
      ...gapOne.map((k) => envelope(KIND, k, 1)),
      ...chains.map((k) => envelope(KIND, k, 1)),
    ];
    for (const message of before) await publish(consumerTest.redis, stream, message);
    await eventually(
      async () => {
        const [{ n }] = await sql(
          `SELECT count(*)::int AS n FROM effect_journal WHERE state = 'applied' AND sequence_key = ANY($1)`,
          [[...allKeys]],
        );
        return n === before.length;
      },
      30_000,
      "the predecessors applied",
    );
    expect(provider.sent.filter((e) => allKeys.has(String(e.request.metadata?.sequenceKey)))).toHaveLength(600);

    // The held records of the incident, reported in no particular order.
    const held = shuffled([
      ...applied.map((k) => ({ group: "applied", message: envelope(KIND, k, 2) })),
      ...gapNone.map((k) => ({ group: "gap", message: envelope(KIND, k, 2) })),
      ...gapOne.map((k) => ({ group: "gap", message: envelope(KIND, k, 3) })),
      ...chains.flatMap((k) => [2, 3, 4].map((n) => ({ group: "chain", message: envelope(KIND, k, n) }))),
    ]);
    const ids = await reportGaps(
      held.map((h) => h.message),
      cause,
    );
    const groupOf = new Map(ids.map((id, i) => [id, held[i]!.group]));
    const callsBefore = provider.calls.length;

    const selection = { type: "group", group: { kind: KIND, reason: "sequence-gap", errorClass: cause } };
    const started = Date.now();
    const { id, planned, dryRun } = await api.start({ selection, ratePerSecond: 500, autoPause: null });
    expect(planned.total).toBe(1000);
    expect(dryRun.dryRun!.counts).toEqual({ "would-suppress": 150, "would-hold-gap": 100, "would-apply": 750 });
    const verdicts = await api.allItems(id);
    const expectedVerdict = { applied: "would-suppress", gap: "would-hold-gap", chain: "would-apply" };
    for (const item of verdicts) {
      expect(item.verdict, item.reviewId).toBe(
        expectedVerdict[groupOf.get(item.reviewId) as keyof typeof expectedVerdict],
      );
    }
    // Within a key the sequences go out in ascending order.
    const positionsByKey = new Map<string, number[]>();
    for (const item of verdicts) {
      positionsByKey.set(item.sequenceKey!, [...(positionsByKey.get(item.sequenceKey!) ?? []), item.sequence!]);
    }
    for (const key of chains) expect(positionsByKey.get(key)).toEqual([2, 3, 4]);

    const stop = new AbortController();
    const dispatcher = runDispatcher({ signal: stop.signal, tickMs: 50 });
    let view;
    try {
      view = await eventually(
        async () => {
          const v = await api.view(id);
          return v.state === "completed" ? v : undefined;
        },
        100_000,
        "the operation completed",
      );
    } finally {
      stop.abort();
      await dispatcher;
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`operations-replay-1000: 1,000 records replayed in ${seconds.toFixed(1)} s`);

    // The outcomes are the dry run's numbers.
    expect(view.progress).toEqual({
      dispatched: 1000,
      outcomes: 1000,
      heldAgain: 100,
      byState: { "duplicate-suppressed": 150, "held-again": 100, applied: 750 },
      outcome: { applied: 900, heldAgain: 100, withdrawn: 0, skipped: 0, neverSent: 0, waiting: 0 },
    });
    const outcomeOf = {
      "would-suppress": "duplicate-suppressed",
      "would-hold-gap": "held-again",
      "would-apply": "applied",
    };
    const items = await api.allItems(id);
    for (const item of items) {
      const verdict = verdicts.find((v) => v.position === item.position)!.verdict!;
      expect(item.state, `${item.reviewId} (${verdict})`).toBe(outcomeOf[verdict as keyof typeof outcomeOf]);
      expect(item.replayId).not.toBeNull();
    }

    // The provider: every effect at most once; the suppressed and the held never reached it.
    const calls = provider.calls.filter((c) => allKeys.has(c.idempotencyKey.split(":")[0]!));
    const perKey = countBy(calls, (c) => c.idempotencyKey);
    expect(
      Object.values(perKey).every((n) => n === 1),
      "no effectKey was sent twice",
    ).toBe(true);
    expect(calls.every((c) => c.answer === "sent")).toBe(true);
    const during = provider.calls.slice(callsBefore).filter((c) => allKeys.has(c.idempotencyKey.split(":")[0]!));
    expect(during).toHaveLength(750);
    expect(during.every((c) => c.idempotencyKey.startsWith("c-"))).toBe(true);
    for (const key of chains) {
      const sent = provider.sent
        .filter((e) => e.request.metadata?.sequenceKey === key)
        .sort((a, b) => a.order - b.order);
      expect(
        sent.map((e) => e.request.metadata?.sequence),
        key,
      ).toEqual([1, 2, 3, 4]);
    }

    // The records, the replays, the journal and the sequences.
    const records = await sql(
      `SELECT id::text, status::text, attempts, category::text FROM review_records WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    for (const r of records) {
      const group = groupOf.get(r.id);
      expect(r.status, `${group} ${r.id}`).toBe(group === "gap" ? "open" : "resolved");
      if (group === "gap") expect(r).toMatchObject({ attempts: 2, category: "sequence-gap" });
    }
    const replays = await sql(`SELECT review_id::text, state::text FROM replays WHERE operation_id = $1`, [id]);
    expect(replays).toHaveLength(1000);
    expect(new Set(replays.map((r) => r.review_id)).size, "one replay per record").toBe(1000);
    expect(countBy(replays, (r) => r.state)).toEqual({ applied: 750, "duplicate-suppressed": 150, routed: 100 });
    const sequences = await sql(
      `SELECT sequence_key, last_sequence::int AS last FROM sequence_state WHERE sequence_key = ANY($1)`,
      [[...allKeys]],
    );
    const last = new Map(sequences.map((s) => [s.sequence_key, s.last]));
    for (const key of chains) expect(last.get(key)).toBe(4);
    for (const key of applied) expect(last.get(key)).toBe(2);
    for (const key of gapOne) expect(last.get(key)).toBe(1);
    for (const key of gapNone) expect(last.get(key) ?? 0).toBe(0);

    // The decision log tells it: created, one selection per record, confirmed, one replay action
    // per record with the operation's id, each outcome, completed; and the chain holds.
    const log = await sql(
      `SELECT action, review_id::text, details FROM decision_log WHERE details->>'operationId' = $1 ORDER BY seq`,
      [id],
    );
    expect(countBy(log, (e) => e.action)).toEqual({
      "operation.created": 1,
      "operation.record-selected": 1000,
      "operation.confirmed": 1,
      "review.replay": 1000,
      "replay.applied": 750,
      "replay.duplicate-suppressed": 150,
      "replay.routed": 100,
      "operation.completed": 1,
    });
    expect(new Set(log.filter((e) => e.action === "review.replay").map((e) => e.review_id)).size).toBe(1000);
    expect(log[0]!.action).toBe("operation.created");
    expect(log.at(-1)!.action).toBe("operation.completed");
    expect(log.at(-1)!.details).toMatchObject({ dispatched: 1000, outcomes: 1000 });
    const verdict = await verifyDecisionLog(consumerTest.database.current.url);
    expect(verdict).toMatchObject({ ok: true });
  }, 180_000);
});
