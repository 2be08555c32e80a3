/**
 * Replays scheduled in the console (performAction, as the actions API does) run through the
 * worker's own decision with the original id and effectKey, and their outcome lands on the
 * replay and its record: applied -> resolved, suppressed -> resolved, held again -> open.
 */
import { describe, expect, it } from "vitest";
import { type Actor } from "@/lib/access";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually, reminder, startWorker, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import { publish } from "@review-console/consumer/redis";
import type { ActionRequest } from "@/lib/reviews";
import { performAction } from "@/lib/actions";
import { setupConsumerTest } from "../support/consumer";

const consumerTest = await setupConsumerTest("consumer-replays");
const { redisUp, sql, provider, workers } = consumerTest;
const owner: Actor = { kind: "user", id: "owner-1", label: "user:owner@test", role: "owner" };

/** A worker that also claims replays; each test uses its own stream and invoice keys. */
function start() {
  const stream = uniqueName("rc-test-replays");
  const w = startWorker(
    {
      name: "replay-worker",
      handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
      effectLeaseMs: 2000,
      gapGraceMs: 200,
      replays: { pollMs: 100, leaseSeconds: 30 },
    },
    { stream, group: "workers", consumer: "w1" },
  );
  workers.push(w);
  return { ...w, send: (envelope: unknown) => publish(consumerTest.redis, stream, envelope) };
}

// The first final outcome (a gap first waits out its grace period).
const outcomeOf = (w: RunningWorker, entryId: string) =>
  eventually(
    () => w.outcomes.find((o) => o.message.source.transportId === entryId && o.outcome.type !== "wait")?.outcome,
    10_000,
    `outcome of ${entryId}`,
  );

async function record(messageId: string) {
  const [row] = await sql(
    `SELECT id::text, status::text, category::text, reason, attempts, version FROM review_records
      WHERE message_id = $1 ORDER BY seq DESC LIMIT 1`,
    [messageId],
  );
  return row;
}

async function act(messageId: string, request: Omit<ActionRequest, "expectedVersion" | "checkDone">) {
  const r = await record(messageId);
  const result = await performAction(
    r.id,
    { ...request, expectedVersion: r.version, checkDone: true } as ActionRequest,
    owner,
  );
  expect(result).toMatchObject({ ok: true });
  return r.id as string;
}

const settled = (messageId: string, status: string) =>
  eventually(
    async () => ((await record(messageId))?.status === status ? record(messageId) : undefined),
    10_000,
    `${messageId} ${status}`,
  );
const emailsFor = (invoice: string) => provider.sent.filter((e) => e.request.metadata?.sequenceKey === invoice);
const replayOf = async (reviewId: string) =>
  (await sql(`SELECT state::text, detail FROM replays WHERE review_id = $1 ORDER BY created_at DESC`, [reviewId]))[0];

describe.skipIf(!redisUp)("replays scheduled in the console", () => {
  it("a replay of an effect that is already applied is suppressed and resolves the record", async () => {
    const w = start();
    const invoice = uniqueName("inv");
    await outcomeOf(w, await w.send(reminder(invoice, 1)));
    expect(await outcomeOf(w, await w.send(reminder(invoice, 3)))).toMatchObject({ reason: "sequence-gap" });
    await outcomeOf(w, await w.send(reminder(invoice, 2)));
    // The producer sent 3 again: applied from the stream while its gap record is still open.
    expect(await outcomeOf(w, await w.send(reminder(invoice, 3)))).toMatchObject({ type: "applied" });
    const id = await act(`msg-${invoice}-3`, { action: "replay", reason: "message 2 arrived" });
    const resolved = await settled(`msg-${invoice}-3`, "resolved");
    expect(resolved.category).toBe("sequence-gap");
    expect(await replayOf(id)).toMatchObject({ state: "duplicate-suppressed" });
    expect(
      emailsFor(invoice).map((e) => e.request.metadata?.sequence),
      "3 was sent once",
    ).toEqual([1, 2, 3]);
  });

  it("a gap replayed after its predecessor arrived is applied with the same id and effectKey and resolves", async () => {
    const w = start();
    const invoice = uniqueName("inv");
    await w.send(reminder(invoice, 2));
    await settled(`msg-${invoice}-2`, "open");
    await outcomeOf(w, await w.send(reminder(invoice, 1)));
    const id = await act(`msg-${invoice}-2`, { action: "replay", reason: "message 1 arrived" });
    await settled(`msg-${invoice}-2`, "resolved");
    expect(await replayOf(id)).toMatchObject({ state: "applied" });
    const sent = emailsFor(invoice).find((e) => e.request.metadata?.sequence === 2)!;
    expect(sent.idempotencyKey).toBe(`${invoice}:reminder-2`);
    expect(sent.request.metadata?.messageId).toBe(`msg-${invoice}-2`);
    const [journal] = await sql(`SELECT state::text, provider_ref FROM effect_journal WHERE effect_key = $1`, [
      `${invoice}:reminder-2`,
    ]);
    expect(journal).toEqual({ state: "applied", provider_ref: sent.id });
    const history = await sql(`SELECT action FROM review_history WHERE review_id = $1 ORDER BY id`, [id]);
    expect(history.map((h) => h.action)).toEqual(["reported", "replay", "replay-claimed", "replay-applied"]);
  });

  it("a replay held again reopens its record with one attempt more and the new reason", async () => {
    const w = start();
    const invoice = uniqueName("inv");
    await w.send(reminder(invoice, 3));
    const before = await settled(`msg-${invoice}-3`, "open");
    const id = await act(`msg-${invoice}-3`, { action: "replay", reason: "try again" });
    await eventually(async () => (await replayOf(id))?.state === "routed", 10_000, "the replay routed");
    const after = await record(`msg-${invoice}-3`);
    expect(after).toMatchObject({ status: "open", category: "sequence-gap", reason: "sequence-gap" });
    expect(after.attempts).toBe(before.attempts + 1);
    expect(emailsFor(invoice)).toHaveLength(0);
  });

  it("a corrected payload replayed into a gap reopens the record as a sequence-gap", async () => {
    const w = start();
    const invoice = uniqueName("inv");
    await w.send(reminder(invoice, 2, { payload: { schema: "2021-03", invoiceId: 42 } }));
    expect(await settled(`msg-${invoice}-2`, "open")).toMatchObject({ reason: "invalid-payload" });
    const id = await act(`msg-${invoice}-2`, {
      action: "correct-and-replay",
      reason: "invoiceId must be a string",
      payload: { schema: "2021-03", invoiceId: invoice },
    });
    await eventually(async () => (await replayOf(id))?.state === "routed", 10_000, "the replay routed");
    expect(await record(`msg-${invoice}-2`)).toMatchObject({
      status: "open",
      category: "sequence-gap",
      reason: "sequence-gap",
    });
    // Once 1 is in, the corrected revision replays cleanly.
    await outcomeOf(w, await w.send(reminder(invoice, 1)));
    await act(`msg-${invoice}-2`, { action: "replay", reason: "message 1 arrived" });
    await settled(`msg-${invoice}-2`, "resolved");
    expect(emailsFor(invoice).map((e) => e.request.metadata?.sequence)).toEqual([1, 2]);
  });

  it("replays of one sequenceKey run one at a time, in sequence order, whatever order they were scheduled in", async () => {
    const w = start();
    const invoice = uniqueName("inv");
    await outcomeOf(w, await w.send(reminder(invoice, 1)));
    await w.send(reminder(invoice, 4));
    await w.send(reminder(invoice, 3));
    await settled(`msg-${invoice}-4`, "open");
    await settled(`msg-${invoice}-3`, "open");
    await outcomeOf(w, await w.send(reminder(invoice, 2)));
    // Both due at the same moment, 4 scheduled first: the claim still hands out 3 first.
    const runAt = new Date(Date.now() + 1500).toISOString();
    await act(`msg-${invoice}-4`, { action: "replay", reason: "2 arrived", runAt });
    await act(`msg-${invoice}-3`, { action: "replay", reason: "2 arrived", runAt });
    await settled(`msg-${invoice}-4`, "resolved");
    await settled(`msg-${invoice}-3`, "resolved");
    expect(emailsFor(invoice).map((e) => e.request.metadata?.sequence)).toEqual([1, 2, 3, 4]);
  });
});
