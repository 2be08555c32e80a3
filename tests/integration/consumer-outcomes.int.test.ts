/**
 * Every outcome of docs/contract.md through the consumer runtime, on the real Redis (a stream and
 * group per test) and the real PostgreSQL (this file's own database): what is applied, what is
 * suppressed, what waits, and what becomes a review record, and that the entry is acknowledged
 * only once its outcome is committed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createKindRegistry, invoiceReminderKind } from "@review-console/contract";
import { type ProviderRule } from "@/testing/worker/demo/fake-email-provider";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { PermanentFailure, TemporaryFailure, type Handler } from "@review-console/consumer";
import { eventually, reminder, startWorker, uniqueName, type RunningWorker } from "@/testing/worker/harness";
import { publish } from "@review-console/consumer/redis";
import type { InProcessConsumerOptions } from "@/testing/worker/in-process";
import { setupConsumerTest } from "../support/consumer";

const consumerTest = await setupConsumerTest("consumer-outcomes");
const { redisUp, sql, provider, workers } = consumerTest;

beforeAll(async () => {
  if (!redisUp) return;
  await sql(`CREATE TABLE ledger (effect_key text PRIMARY KEY, account text NOT NULL, amount integer NOT NULL)`);
});

// A kind with a local effect: a ledger row in the same database.
const ledgerKind = {
  kind: "ledger.entry",
  schemas: { "1": z.looseObject({ schema: z.literal("1"), account: z.string().min(1), amount: z.int() }) },
  temporaryReasons: { "account-locked": { limit: 2, delayMs: 50 } },
};
const registry = createKindRegistry([invoiceReminderKind, ledgerKind]);

const ledgerHandler: Handler = {
  effect: "local",
  async apply({ tx, envelope, effectKey }) {
    const { account, amount } = envelope.payload as unknown as { account: string; amount: number };
    if (account === "broken") throw new Error("the ledger refused the entry");
    const insert = `INSERT INTO ledger (effect_key, account, amount) VALUES ($1, $2, $3)`;
    // Queued: sent with the bookkeeping and the COMMIT; "q-broken" queues a NOT NULL violation.
    if (account.startsWith("q-")) tx.queue(insert, [effectKey, account, account === "q-broken" ? null : amount]);
    else await tx.query(insert, [effectKey, account, amount]);
  },
};

/** A worker on a stream of its own; `handlers` default to the email reminder and the ledger. */
function worker(options: Partial<InProcessConsumerOptions> = {}, transport: Record<string, unknown> = {}) {
  const stream = uniqueName("rc-test-outcomes");
  const running = startWorker(
    {
      name: uniqueName("worker"),
      registry,
      handlers: { "invoice.reminder": emailReminderHandler(provider.url), "ledger.entry": ledgerHandler },
      effectLeaseMs: 2000,
      gapGraceMs: 300,
      replays: false,
      ...options,
    },
    { stream, group: "workers", consumer: "w1", claimIdleMs: 5000, ...transport },
  );
  workers.push(running);
  return { ...running, stream, send: (envelope: unknown) => publish(consumerTest.redis, stream, envelope) };
}

const outcomeOf = (w: RunningWorker, entryId: string, type?: string) =>
  eventually(
    () =>
      w.outcomes.find(
        (o) => o.message.source.transportId === entryId && (type === undefined || o.outcome.type === type),
      )?.outcome,
    10_000,
    `the outcome of ${entryId}`,
  );

async function pendingCount(stream: string): Promise<number> {
  return Number((await consumerTest.redis.xPending(stream, "workers")).pending);
}

async function recordOf(messageId: string) {
  const rows = await sql(
    `SELECT id::text, status::text, category::text, reason, required_check, attempts, last_error,
            message::text AS message_text, source
       FROM review_records WHERE message_id = $1 ORDER BY seq DESC`,
    [messageId],
  );
  return rows[0];
}

const journalOf = async (effectKey: string) =>
  (await sql(`SELECT state::text, provider_ref FROM effect_journal WHERE effect_key = $1`, [effectKey]))[0];
const lastOf = async (sequenceKey: string) =>
  Number(
    (await sql(`SELECT last_sequence FROM sequence_state WHERE sequence_key = $1`, [sequenceKey]))[0]?.last_sequence ??
      0,
  );
const emailsFor = (invoice: string) => provider.sent.filter((e) => e.request.metadata?.sequenceKey === invoice);

describe.skipIf(!redisUp)("apply-and-record", () => {
  it("external: journal started, one provider call with effectKey as the idempotency key, then applied with the reference; acked after", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    const id = await w.send(reminder(invoice, 1));
    const outcome = await outcomeOf(w, id);
    expect(outcome).toMatchObject({ type: "applied" });
    const [email] = emailsFor(invoice);
    expect(email?.idempotencyKey).toBe(`${invoice}:reminder-1`);
    expect(await journalOf(`${invoice}:reminder-1`)).toEqual({ state: "applied", provider_ref: email!.id });
    expect(await lastOf(invoice)).toBe(1);
    await eventually(async () => (await pendingCount(w.stream)) === 0, 5000, "the XACK");
  });

  it("local: the handler's change, journal and sequence advance commit together; a failing handler leaves none of them", async () => {
    const w = worker();
    const key = uniqueName("acct");
    const entry = (n: number, account: string) => ({
      id: `msg-${key}-${n}`,
      kind: "ledger.entry",
      effectKey: `${key}:entry-${n}`,
      sequenceKey: key,
      sequence: n,
      payload: { schema: "1", account, amount: 10 * n },
    });
    const ok = await w.send(entry(1, "acme"));
    expect(await outcomeOf(w, ok)).toEqual({ type: "applied", providerRef: null });
    expect(await sql(`SELECT account, amount FROM ledger WHERE effect_key = $1`, [`${key}:entry-1`])).toEqual([
      { account: "acme", amount: 10 },
    ]);
    expect((await journalOf(`${key}:entry-1`))?.state).toBe("applied");
    expect(await lastOf(key)).toBe(1);

    const bad = await w.send(entry(2, "broken"));
    expect(await outcomeOf(w, bad)).toMatchObject({
      type: "review",
      category: "manual-review",
      reason: "handler-error",
    });
    expect(await sql(`SELECT 1 FROM ledger WHERE effect_key = $1`, [`${key}:entry-2`])).toEqual([]);
    expect(await journalOf(`${key}:entry-2`)).toBeUndefined();
    expect(await lastOf(key), "the sequence did not advance").toBe(1);
    expect((await recordOf(`msg-${key}-2`))?.last_error).toContain("the ledger refused the entry");
  });
  it("local, queued write: sent with the bookkeeping and the COMMIT; when it fails, nothing commits", async () => {
    const w = worker();
    const key = uniqueName("acct");
    const entry = (n: number, account: string) => ({
      id: `msg-${key}-${n}`,
      kind: "ledger.entry",
      effectKey: `${key}:entry-${n}`,
      sequenceKey: key,
      sequence: n,
      payload: { schema: "1", account, amount: 7 },
    });
    expect(await outcomeOf(w, await w.send(entry(1, "q-acme")))).toMatchObject({ type: "applied" });
    expect(await sql(`SELECT account, amount FROM ledger WHERE effect_key = $1`, [`${key}:entry-1`])).toEqual([
      { account: "q-acme", amount: 7 },
    ]);
    const bad = await w.send(entry(2, "q-broken"));
    expect(await outcomeOf(w, bad)).toMatchObject({ type: "review", reason: "handler-error" });
    expect(await journalOf(`${key}:entry-2`), "the journal entry rolled back with it").toBeUndefined();
    expect(await lastOf(key)).toBe(1);
    expect((await recordOf(`msg-${key}-2`))?.last_error).toMatch(/null value in column "amount"/);
  });
});

describe.skipIf(!redisUp)("duplicate-suppressed", () => {
  it("a second delivery of an applied message creates nothing and is acked", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    await outcomeOf(w, await w.send(reminder(invoice, 1)));
    const again = await w.send(reminder(invoice, 1));
    expect(await outcomeOf(w, again)).toEqual({ type: "duplicate-suppressed", because: "sequence-already-applied" });
    expect(emailsFor(invoice)).toHaveLength(1);
    await eventually(async () => (await pendingCount(w.stream)) === 0, 5000, "both acked");
  });
});

describe.skipIf(!redisUp)("held outcomes become review records through the intake tables", () => {
  it("invalid-contract: an entry whose field is not JSON is kept as its raw text", async () => {
    const w = worker();
    const id = await w.send("{this is not json");
    expect(await outcomeOf(w, id)).toMatchObject({
      type: "review",
      category: "manual-review",
      reason: "invalid-contract",
    });
    const [record] = await sql(
      `SELECT message::text AS text, source, last_error, attempts, reason FROM review_records
        WHERE source->>'transportId' = $1`,
      [id],
    );
    expect(JSON.parse(record.text)).toBe("{this is not json");
    expect(record.last_error).toMatch(/not JSON/);
    expect(record.source).toMatchObject({ transport: "redis-streams", transportId: id, consumer: "w1" });
    const [log] = await sql(
      `SELECT actor, actor_role, action FROM decision_log WHERE details->'source'->>'transportId' = $1`,
      [id],
    );
    expect(log).toMatchObject({ actor_role: "consumer", action: "review.reported" });
    expect(log.actor).toMatch(/^consumer:worker-/);
  });

  it("invalid-contract: a missing sequenceKey, with the message kept exactly as sent", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    const text = `{"id":"msg-${invoice}","kind":"invoice.reminder","effectKey":"${invoice}:r","sequence":1,"payload":{"schema":"2021-03","invoiceId":"1","big":12345678901234567890}}`;
    const id = await w.send(text);
    expect(await outcomeOf(w, id)).toMatchObject({ reason: "invalid-contract" });
    expect((await recordOf(`msg-${invoice}`))?.message_text).toBe(text);
  });

  it.each([
    ["an unknown schema version", { schema: "2024-01", invoiceId: "9" }, "invoice.reminder", "unsupported-schema"],
    ["a kind this worker does not serve", { schema: "1" }, "payment.capture", "unsupported-schema"],
    [
      "a payload that fails the kind's schema",
      { schema: "2021-03", invoiceId: 417 },
      "invoice.reminder",
      "invalid-payload",
    ],
  ])("%s", async (_label, payload, kind, reason) => {
    const w = worker();
    const invoice = uniqueName("inv");
    const id = await w.send(reminder(invoice, 1, { kind, payload }));
    expect(await outcomeOf(w, id)).toMatchObject({ type: "review", category: "manual-review", reason });
    expect((await recordOf(`msg-${invoice}-1`))?.status).toBe("open");
    expect(emailsFor(invoice)).toHaveLength(0);
    expect(await lastOf(invoice)).toBe(0);
  });

  it("stale-or-conflicting: an older sequence with another effect is recorded and never applied", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    await outcomeOf(w, await w.send(reminder(invoice, 1)));
    await outcomeOf(w, await w.send(reminder(invoice, 2)));
    const stale = await w.send(reminder(invoice, 1, { id: `msg-${invoice}-1b`, effectKey: `${invoice}:reminder-1b` }));
    expect(await outcomeOf(w, stale)).toMatchObject({ category: "manual-review", reason: "stale-or-conflicting" });
    expect(await lastOf(invoice)).toBe(2);
    expect(emailsFor(invoice)).toHaveLength(2);
  });

  it("sequence-gap: held and recorded with the missing numbers; state unchanged; other keys keep flowing", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    const other = uniqueName("inv");
    const gap = await w.send(reminder(invoice, 3));
    const flowing = await w.send(reminder(other, 1));
    expect(await outcomeOf(w, gap, "review")).toMatchObject({ category: "sequence-gap", reason: "sequence-gap" });
    expect((await recordOf(`msg-${invoice}-3`))?.required_check).toBe(`find messages 1–2 of ${invoice}`);
    expect(await outcomeOf(w, flowing)).toMatchObject({ type: "applied" });
    expect(await lastOf(invoice)).toBe(0);
    expect(emailsFor(invoice)).toHaveLength(0);
  });

  it("a successor arriving a moment before its predecessor waits for it within the grace period: no gap record", async () => {
    const w = worker({ gapGraceMs: 3000 });
    const invoice = uniqueName("inv");
    const second = await w.send(reminder(invoice, 2));
    await eventually(
      () => w.outcomes.find((o) => o.message.source.transportId === second && o.outcome.type === "wait"),
      5000,
      "the successor waiting",
    );
    const first = await w.send(reminder(invoice, 1));
    expect(await outcomeOf(w, first)).toMatchObject({ type: "applied" });
    expect(await outcomeOf(w, second, "applied")).toMatchObject({ type: "applied" });
    expect(emailsFor(invoice).map((e) => e.request.metadata?.sequence)).toEqual([1, 2]);
    expect(await recordOf(`msg-${invoice}-2`)).toBeUndefined();
  });

  it("effect-result-unknown: a dropped answer makes the journal unknown and a record; a redelivery never calls again", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    provider.rules.push({ action: "drop", match: (r) => r.metadata?.sequenceKey === invoice });
    const id = await w.send(reminder(invoice, 1));
    expect(await outcomeOf(w, id)).toMatchObject({
      category: "effect-result-unknown",
      reason: "effect-result-unknown",
    });
    expect((await journalOf(`${invoice}:reminder-1`))?.state).toBe("unknown");
    const record = await recordOf(`msg-${invoice}-1`);
    expect(record.required_check).toContain(`idempotency key ${invoice}:reminder-1`);
    expect(await lastOf(invoice), "the sequence does not advance").toBe(0);

    const again = await w.send(reminder(invoice, 1));
    expect(await outcomeOf(w, again)).toMatchObject({ reason: "effect-result-unknown" });
    expect(emailsFor(invoice), "sent once, by the first call").toHaveLength(1);
    expect(provider.lookup(`${invoice}:reminder-1`)).not.toBeNull();
    const after = await recordOf(`msg-${invoice}-1`);
    expect(after.id, "the same record, reported again").toBe(record.id);
  });

  it("effect-result-unknown: a journal entry started by a worker whose lease ran out is never re-executed", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    await sql(
      `INSERT INTO effect_journal (effect_key, state, sequence_key, sequence, lease_expires_at)
       VALUES ($1, 'started', $2, 1, now() - interval '1 second')`,
      [`${invoice}:reminder-1`, invoice],
    );
    const id = await w.send(reminder(invoice, 1));
    expect(await outcomeOf(w, id)).toMatchObject({ category: "effect-result-unknown" });
    expect((await journalOf(`${invoice}:reminder-1`))?.state).toBe("unknown");
    expect(emailsFor(invoice)).toHaveLength(0);
  });
});

describe.skipIf(!redisUp)("waits: leave the entry unacknowledged and try again, no record", () => {
  it("predecessor-in-flight: the successor waits for a slow predecessor instead of becoming a gap", async () => {
    const invoice = uniqueName("inv");
    const slow: ProviderRule = {
      action: "slow",
      slowMs: 1500,
      match: (r) => r.metadata?.messageId === `msg-${invoice}-1`,
    };
    provider.rules.push(slow);
    const a = worker({}, { maxInMemory: 1 });
    const b = startWorker(
      {
        name: a.consumer.runtime.name,
        registry,
        handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
        effectLeaseMs: 2000,
        gapGraceMs: 300,
        replays: false,
      },
      { stream: a.stream, group: "workers", consumer: "w2", maxInMemory: 1 },
    );
    workers.push(b);
    const first = await a.send(reminder(invoice, 1));
    await eventually(() => slow.times === 0, 5000, "this test's slow call");
    const second = await a.send(reminder(invoice, 2));
    const all = () => [...a.outcomes, ...b.outcomes];
    await eventually(
      () =>
        all().filter((o) => o.outcome.type === "applied" && [first, second].includes(o.message.source.transportId!))
          .length === 2,
      10_000,
      "both applied",
    );
    expect(all().some((o) => o.outcome.type === "wait" && o.outcome.reason === "predecessor-in-flight")).toBe(true);
    expect(emailsFor(invoice).map((e) => e.request.metadata?.sequence)).toEqual([1, 2]);
    expect(await recordOf(`msg-${invoice}-2`)).toBeUndefined();
  });

  it("effect-in-flight: a duplicate delivered while the effect is in flight waits, then is suppressed", async () => {
    const invoice = uniqueName("inv");
    const slow: ProviderRule = {
      action: "slow",
      slowMs: 1500,
      match: (r) => r.metadata?.messageId === `msg-${invoice}-1`,
    };
    provider.rules.push(slow);
    const a = worker({}, { maxInMemory: 1 });
    const b = startWorker(
      {
        name: a.consumer.runtime.name,
        registry,
        handlers: { "invoice.reminder": emailReminderHandler(provider.url) },
        effectLeaseMs: 2000,
        gapGraceMs: 300,
        replays: false,
      },
      { stream: a.stream, group: "workers", consumer: "w2", maxInMemory: 1 },
    );
    workers.push(b);
    await a.send(reminder(invoice, 1));
    await eventually(() => slow.times === 0, 5000, "this test's slow call");
    const duplicate = await a.send(reminder(invoice, 1));
    const all = () => [...a.outcomes, ...b.outcomes];
    await eventually(
      () => all().find((o) => o.message.source.transportId === duplicate && o.outcome.type === "duplicate-suppressed"),
      10_000,
      "the duplicate suppressed",
    );
    expect(all().some((o) => o.outcome.type === "wait" && o.outcome.reason === "effect-in-flight")).toBe(true);
    expect(emailsFor(invoice)).toHaveLength(1);
    expect(await recordOf(`msg-${invoice}-1`)).toBeUndefined();
  });
});

describe.skipIf(!redisUp)("bounded retry from the kind's policy", () => {
  it("a temporary reason is retried after its delay and then applied", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    provider.rules.push({ action: "unavailable", match: (r) => r.metadata?.sequenceKey === invoice, times: 1 });
    const id = await w.send(reminder(invoice, 1));
    const applied = await outcomeOf(w, id, "applied");
    expect(applied).toMatchObject({ type: "applied" });
    const kinds = w.outcomes.filter((o) => o.message.source.transportId === id).map((o) => o.outcome.type);
    expect(kinds[0]).toBe("retry");
    expect(kinds.at(-1)).toBe("applied");
    expect(emailsFor(invoice)).toHaveLength(1);
    expect(await sql(`SELECT 1 FROM consumer_attempts WHERE effect_key = $1`, [`${invoice}:reminder-1`])).toEqual([]);
  });

  it("past the limit it becomes a review record with reason retry-limit, naming the attempts", async () => {
    const w = worker();
    const invoice = uniqueName("inv");
    provider.rules.push({ action: "unavailable", match: (r) => r.metadata?.sequenceKey === invoice, times: 5 });
    const id = await w.send(reminder(invoice, 1));
    expect(await outcomeOf(w, id, "review")).toMatchObject({ category: "manual-review", reason: "retry-limit" });
    const record = await recordOf(`msg-${invoice}-1`);
    expect(record.attempts).toBe(2);
    expect(record.last_error).toContain("503");
    expect(await journalOf(`${invoice}:reminder-1`), "the provider never acted: no journal entry").toBeUndefined();
    expect(emailsFor(invoice)).toHaveLength(0);
  });

  it("a reason the kind does not declare temporary goes to review under that reason, without retry", async () => {
    const refusing: Handler = {
      effect: "external",
      execute: async () => {
        throw new PermanentFailure("recipient-rejected", "422 the address bounced");
      },
    };
    const flaky: Handler = {
      effect: "external",
      execute: async () => {
        throw new TemporaryFailure("rate-limited", "429 slow down");
      },
    };
    for (const [handler, reason] of [
      [refusing, "recipient-rejected"],
      [flaky, "rate-limited"],
    ] as const) {
      const w = worker({ handlers: { "invoice.reminder": handler } });
      const invoice = uniqueName("inv");
      const id = await w.send(reminder(invoice, 1));
      expect(await outcomeOf(w, id)).toMatchObject({ type: "review", reason });
      expect(w.outcomes.filter((o) => o.message.source.transportId === id)).toHaveLength(1);
      expect(await journalOf(`${invoice}:reminder-1`)).toBeUndefined();
    }
  });
});
