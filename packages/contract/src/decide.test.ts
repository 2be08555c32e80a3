import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decide, KNOWN_REASONS, REVIEW_CATEGORIES, type Decision, type DecisionState } from "./decide.ts";
import { createKindRegistry, invoiceReminderKind } from "./kinds.ts";

const NOW = new Date("2024-05-01T12:00:00.000Z");
const after = (ms: number) => new Date(NOW.getTime() + ms);

// The worked example of docs/contract.md.
function workedExample(): Record<string, unknown> {
  return {
    id: "msg-order-417",
    kind: "invoice.reminder",
    effectKey: "invoice-417:reminder",
    sequenceKey: "invoice-417",
    sequence: 4,
    payload: { invoiceId: "417", schema: "2021-03" },
  };
}

function withSequence(sequence: unknown): Record<string, unknown> {
  return { ...workedExample(), sequence };
}

function state(overrides: Partial<DecisionState> = {}): DecisionState {
  return { lastSequence: 0, journal: null, inFlightSequences: [], now: NOW, ...overrides };
}

const ready = state({ lastSequence: 3 });

function reviewOf(decision: Decision) {
  if (decision.outcome !== "review") throw new Error(`expected a review, got ${decision.outcome}`);
  return decision;
}

describe("worked example", () => {
  it("is apply-and-record with last sequence 3 and an empty journal", () => {
    expect(decide(workedExample(), ready)).toEqual({ outcome: "apply-and-record", envelope: workedExample() });
  });

  it("is a sequence-gap for 1–3 from an empty state", () => {
    const decision = reviewOf(decide(workedExample(), state()));
    expect(decision).toMatchObject({
      category: "sequence-gap",
      reason: "sequence-gap",
      missing: { from: 1, to: 3 },
    });
    expect(decision.requiredCheck).toBe("find messages 1–3 of invoice-417");
  });
});

describe("rule 1: invalid-contract", () => {
  it.each([null, undefined, "msg-order-417", 42, [workedExample()]])("reviews a non-object message %j", (raw) => {
    expect(decide(raw, ready)).toMatchObject({
      outcome: "review",
      category: "manual-review",
      reason: "invalid-contract",
    });
  });

  it.each(["id", "effectKey", "sequenceKey"])("reviews a message without %s and names the field", (field) => {
    const raw = workedExample();
    delete raw[field];
    const decision = reviewOf(decide(raw, ready));
    expect(decision).toMatchObject({ category: "manual-review", reason: "invalid-contract" });
    expect(decision.issues?.map((issue) => issue.path)).toEqual([field]);
    expect(decision.requiredCheck).toContain(field);
  });

  it.each(["id", "effectKey", "sequenceKey"])("reviews an empty %s", (field) => {
    const decision = reviewOf(decide({ ...workedExample(), [field]: "" }, ready));
    expect(decision.reason).toBe("invalid-contract");
    expect(decision.issues?.map((issue) => issue.path)).toEqual([field]);
  });

  it.each([
    ["0", 0],
    ["-1", -1],
    ["1.5", 1.5],
    ['"3"', "3"],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["null", null],
    ["missing", undefined],
  ])("reviews sequence %s as invalid-contract", (_label, sequence) => {
    const decision = reviewOf(decide(withSequence(sequence), ready));
    expect(decision.reason).toBe("invalid-contract");
    expect(decision.issues?.map((issue) => issue.path)).toEqual(["sequence"]);
    expect(decision.requiredCheck).toContain("sequence");
  });

  it("names every missing field in one review", () => {
    const decision = reviewOf(
      decide({ kind: "invoice.reminder", payload: { schema: "2021-03", invoiceId: "1" } }, ready),
    );
    expect(decision.issues?.map((issue) => issue.path).sort()).toEqual(["effectKey", "id", "sequence", "sequenceKey"]);
    expect(decision.requiredCheck).toMatch(/id.*effectKey.*sequenceKey.*sequence/);
  });

  it("comes before rule 2: an invalid contract with an unsupported schema is invalid-contract", () => {
    const raw = { ...workedExample(), effectKey: "", payload: { schema: "2099-01" } };
    expect(reviewOf(decide(raw, ready)).reason).toBe("invalid-contract");
  });

  it("comes before the journal: an invalid contract is never suppressed as a duplicate", () => {
    const applied = state({ lastSequence: 3, journal: { state: "applied", leaseExpiresAt: null } });
    expect(reviewOf(decide(withSequence(0), applied)).reason).toBe("invalid-contract");
  });
});

describe("rule 2: unsupported-schema and invalid-payload", () => {
  it("reviews an unknown kind as unsupported-schema, naming the kind", () => {
    const decision = reviewOf(decide({ ...workedExample(), kind: "invoice.refund" }, ready));
    expect(decision).toMatchObject({ category: "manual-review", reason: "unsupported-schema" });
    expect(decision.requiredCheck).toContain("invoice.refund");
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["not a string", 7],
  ])("reviews a kind that is %s as unsupported-schema", (_label, kind) => {
    const decision = reviewOf(decide({ ...workedExample(), kind }, ready));
    expect(decision.reason).toBe("unsupported-schema");
    expect(decision.requiredCheck).toContain("msg-order-417");
  });

  it("reviews an unsupported schema version, naming kind and version", () => {
    const raw = { ...workedExample(), payload: { invoiceId: "417", schema: "2099-01" } };
    const decision = reviewOf(decide(raw, ready));
    expect(decision).toMatchObject({ category: "manual-review", reason: "unsupported-schema" });
    expect(decision.requiredCheck).toContain("invoice.reminder");
    expect(decision.requiredCheck).toContain("2099-01");
  });

  it.each([
    ["missing", undefined],
    ["without schema", { invoiceId: "417" }],
    ["an array", []],
  ])("reviews a payload %s as unsupported-schema", (_label, payload) => {
    expect(reviewOf(decide({ ...workedExample(), payload }, ready)).reason).toBe("unsupported-schema");
  });

  it("reviews a payload failing the kind's schema as invalid-payload at payload.invoiceId", () => {
    const raw = { ...workedExample(), payload: { schema: "2021-03" } };
    const decision = reviewOf(decide(raw, ready));
    expect(decision).toMatchObject({ category: "manual-review", reason: "invalid-payload" });
    expect(decision.issues?.map((issue) => issue.path)).toEqual(["payload.invoiceId"]);
    expect(decision.requiredCheck).toContain("payload.invoiceId");
  });

  it("comes before rule 4: an invalid payload that is also gapped is invalid-payload", () => {
    const raw = { ...workedExample(), payload: { schema: "2021-03" } };
    expect(reviewOf(decide(raw, state())).reason).toBe("invalid-payload");
  });

  it("comes before rule 3: an unsupported schema at an applied sequence is not suppressed", () => {
    const raw = { ...workedExample(), payload: { invoiceId: "417", schema: "2099-01" } };
    const applied = state({ lastSequence: 4, journal: { state: "applied", leaseExpiresAt: null } });
    expect(reviewOf(decide(raw, applied)).reason).toBe("unsupported-schema");
  });

  it("uses the registry it is given", () => {
    const other = createKindRegistry([
      { kind: "order.ship", schemas: { v1: z.object({ schema: z.literal("v1") }) }, temporaryReasons: {} },
    ]);
    const raw = { ...workedExample(), kind: "order.ship", payload: { schema: "v1" } };
    expect(decide(raw, ready, other).outcome).toBe("apply-and-record");
    expect(reviewOf(decide(workedExample(), ready, other)).reason).toBe("unsupported-schema");
  });
});

describe("rule 3: sequence at or below the last applied", () => {
  it("suppresses a duplicate after a lost ack: journal applied, last advanced, no apply", () => {
    const afterLostAck = state({ lastSequence: 4, journal: { state: "applied", leaseExpiresAt: null } });
    expect(decide(workedExample(), afterLostAck)).toEqual({
      outcome: "duplicate-suppressed",
      envelope: workedExample(),
      because: "sequence-already-applied",
    });
  });

  it("suppresses an older sequence whose effect was cancelled", () => {
    const cancelled = state({ lastSequence: 9, journal: { state: "cancelled", leaseExpiresAt: null } });
    expect(decide(workedExample(), cancelled)).toMatchObject({
      outcome: "duplicate-suppressed",
      because: "sequence-already-applied",
    });
  });

  it("reviews a stale message not in the journal as stale-or-conflicting and never applies it", () => {
    const decision = reviewOf(decide(withSequence(2), ready));
    expect(decision).toMatchObject({ category: "manual-review", reason: "stale-or-conflicting" });
    expect(decision.requiredCheck).toBe("compare sequence 2 of invoice-417 with the applied sequence 3");
  });

  it("treats sequence equal to last without a journal entry as stale-or-conflicting", () => {
    expect(reviewOf(decide(withSequence(3), ready)).reason).toBe("stale-or-conflicting");
  });

  it("wins over the journal: a started effect within its lease at an old sequence is not a wait", () => {
    const started = state({ lastSequence: 4, journal: { state: "started", leaseExpiresAt: after(60_000) } });
    expect(reviewOf(decide(workedExample(), started)).reason).toBe("stale-or-conflicting");
  });

  it("wins over the journal: an unknown effect at an old sequence is stale-or-conflicting", () => {
    const unknown = state({ lastSequence: 4, journal: { state: "unknown", leaseExpiresAt: null } });
    expect(reviewOf(decide(workedExample(), unknown))).toMatchObject({
      category: "manual-review",
      reason: "stale-or-conflicting",
    });
  });
});

describe("rule 4: sequence gap", () => {
  const twelve = { ...workedExample(), sequence: 12 };

  it("holds 12 arriving before 11 as a gap, naming message 11", () => {
    const decision = reviewOf(decide(twelve, state({ lastSequence: 10 })));
    expect(decision).toEqual({
      outcome: "review",
      category: "sequence-gap",
      reason: "sequence-gap",
      requiredCheck: "find message 11 of invoice-417",
      missing: { from: 11, to: 11 },
    });
  });

  it("defers 12 as predecessor-in-flight while 11 is in flight", () => {
    expect(decide(twelve, state({ lastSequence: 10, inFlightSequences: [11] }))).toEqual({
      outcome: "wait",
      reason: "predecessor-in-flight",
      envelope: twelve,
    });
  });

  it("applies 12 once 11 has been applied", () => {
    expect(decide(twelve, state({ lastSequence: 11 })).outcome).toBe("apply-and-record");
  });

  it("reports a gap of two even when both are in flight: the exception is for one missing number", () => {
    const thirteen = { ...workedExample(), sequence: 13 };
    const decision = reviewOf(decide(thirteen, state({ lastSequence: 10, inFlightSequences: [11, 12] })));
    expect(decision).toMatchObject({ reason: "sequence-gap", missing: { from: 11, to: 12 } });
    expect(decision.requiredCheck).toBe("find messages 11–12 of invoice-417");
  });

  it("reports a gap when only an unrelated sequence is in flight", () => {
    expect(reviewOf(decide(twelve, state({ lastSequence: 10, inFlightSequences: [9, 12, 13] }))).reason).toBe(
      "sequence-gap",
    );
  });

  it("comes before rule 5: a gapped message already in the journal is still a gap", () => {
    const applied = state({ lastSequence: 1, journal: { state: "applied", leaseExpiresAt: null } });
    expect(reviewOf(decide(workedExample(), applied))).toMatchObject({
      reason: "sequence-gap",
      missing: { from: 2, to: 3 },
    });
  });

  it("comes before rule 5: a gapped message whose effect is in flight is a gap, not effect-in-flight", () => {
    const started = state({ lastSequence: 0, journal: { state: "started", leaseExpiresAt: after(60_000) } });
    expect(reviewOf(decide(workedExample(), started)).reason).toBe("sequence-gap");
  });
});

describe("rule 5: the effect journal", () => {
  it("suppresses an effect already applied", () => {
    const applied = state({ lastSequence: 3, journal: { state: "applied", leaseExpiresAt: null } });
    expect(decide(workedExample(), applied)).toEqual({
      outcome: "duplicate-suppressed",
      envelope: workedExample(),
      because: "effect-already-recorded",
    });
  });

  it("suppresses an effect that was cancelled", () => {
    const cancelled = state({ lastSequence: 3, journal: { state: "cancelled", leaseExpiresAt: null } });
    expect(decide(workedExample(), cancelled)).toMatchObject({
      outcome: "duplicate-suppressed",
      because: "effect-already-recorded",
    });
  });

  it("defers an effect started within its lease as effect-in-flight", () => {
    const started = state({ lastSequence: 3, journal: { state: "started", leaseExpiresAt: after(30_000) } });
    expect(decide(workedExample(), started)).toEqual({
      outcome: "wait",
      reason: "effect-in-flight",
      envelope: workedExample(),
    });
  });

  it("still defers one millisecond before the lease ends", () => {
    const started = state({ lastSequence: 3, journal: { state: "started", leaseExpiresAt: after(1) } });
    expect(decide(workedExample(), started)).toMatchObject({ outcome: "wait", reason: "effect-in-flight" });
  });

  // Choice: a lease ending exactly at `now` has expired (live means now < leaseExpiresAt).
  it("treats a lease ending exactly now as expired: effect-result-unknown", () => {
    const started = state({ lastSequence: 3, journal: { state: "started", leaseExpiresAt: after(0) } });
    expect(reviewOf(decide(workedExample(), started))).toMatchObject({
      category: "effect-result-unknown",
      reason: "effect-result-unknown",
    });
  });

  it("reviews an effect started past its lease as effect-result-unknown, asking the provider", () => {
    const started = state({ lastSequence: 3, journal: { state: "started", leaseExpiresAt: after(-1) } });
    const decision = reviewOf(decide(workedExample(), started));
    expect(decision).toMatchObject({ category: "effect-result-unknown", reason: "effect-result-unknown" });
    expect(decision.requiredCheck).toBe(
      "ask the provider whether reminder 417 was sent (idempotency key invoice-417:reminder)",
    );
  });

  it("reviews a started effect without a lease as effect-result-unknown: nobody holds it", () => {
    const started = state({ lastSequence: 3, journal: { state: "started", leaseExpiresAt: null } });
    expect(reviewOf(decide(workedExample(), started)).category).toBe("effect-result-unknown");
  });

  it("reviews an unknown effect as effect-result-unknown even with a live lease", () => {
    const unknown = state({ lastSequence: 3, journal: { state: "unknown", leaseExpiresAt: after(60_000) } });
    expect(reviewOf(decide(workedExample(), unknown)).category).toBe("effect-result-unknown");
  });

  it("names the effect key when the kind has no description", () => {
    const plain = createKindRegistry([{ ...invoiceReminderKind, describeEffect: undefined }]);
    const unknown = state({ lastSequence: 3, journal: { state: "unknown", leaseExpiresAt: null } });
    expect(reviewOf(decide(workedExample(), unknown, plain)).requiredCheck).toBe(
      "ask the provider whether effect invoice-417:reminder was sent",
    );
  });

  it("falls back to the effect key when the kind's description throws", () => {
    const faulty = createKindRegistry([
      {
        ...invoiceReminderKind,
        describeEffect: () => {
          throw new Error("boom");
        },
      },
    ]);
    const unknown = state({ lastSequence: 3, journal: { state: "unknown", leaseExpiresAt: null } });
    expect(reviewOf(decide(workedExample(), unknown, faulty)).requiredCheck).toContain("invoice-417:reminder");
  });

  it("reads time only from the state, never from the clock", () => {
    const past = new Date("2001-01-01T00:00:00.000Z");
    const started = {
      lastSequence: 3,
      journal: { state: "started" as const, leaseExpiresAt: new Date("2001-01-01T00:01:00.000Z") },
      inFlightSequences: [],
      now: past,
    };
    expect(decide(workedExample(), started).outcome).toBe("wait");
  });
});

describe("rule 6: apply-and-record", () => {
  it("applies the first message of a fresh key", () => {
    expect(decide(withSequence(1), state()).outcome).toBe("apply-and-record");
  });

  it("returns the message as received, unknown fields kept, without modifying it", () => {
    const raw = Object.freeze({
      ...workedExample(),
      traceId: "t-9",
      payload: Object.freeze({ invoiceId: "417", schema: "2021-03" }),
    });
    const decision = decide(raw, ready);
    expect(decision).toEqual({ outcome: "apply-and-record", envelope: raw });
  });
});

describe("review vocabulary", () => {
  it("exports the three review categories and the known reasons", () => {
    expect(REVIEW_CATEGORIES).toEqual(["manual-review", "sequence-gap", "effect-result-unknown"]);
    expect([...KNOWN_REASONS].sort()).toEqual(
      [
        "effect-result-unknown",
        "invalid-contract",
        "invalid-payload",
        "retry-limit",
        "sequence-gap",
        "stale-or-conflicting",
        "unsupported-schema",
      ].sort(),
    );
  });

  it("only produces categories and reasons from that vocabulary, each with a required check", () => {
    const reviews = [
      decide(null, ready),
      decide({ ...workedExample(), kind: "x" }, ready),
      decide({ ...workedExample(), payload: { schema: "2021-03" } }, ready),
      decide(withSequence(2), ready),
      decide(workedExample(), state()),
      decide(workedExample(), state({ lastSequence: 3, journal: { state: "unknown", leaseExpiresAt: null } })),
    ].map(reviewOf);
    expect(new Set(reviews.map((r) => r.reason)).size).toBe(6);
    for (const r of reviews) {
      expect(REVIEW_CATEGORIES).toContain(r.category);
      expect(KNOWN_REASONS).toContain(r.reason);
      expect(r.requiredCheck.length).toBeGreaterThan(0);
    }
  });
});
