import { describe, expect, it } from "vitest";
import { buildSlots, describeSequence } from "./sequence-model";
import { testRecord } from "./test-record";
import type { HeldRecord } from "./types";

const held = (sequence: number, id = `held-${sequence}`): HeldRecord => ({
  id,
  sequence,
  status: "open",
  category: "manual-review",
  reason: "invalid-payload",
});

describe("describeSequence", () => {
  it("names the gap, the missing range and who waits", () => {
    const model = describeSequence(testRecord(), "invoice-417", 12);
    expect(model.missing).toEqual({ from: 11, to: 11 });
    expect(model.halt).toBe("unreceived");
    expect(model.waiting).toHaveLength(1);
    expect(model.position).toMatch(/^Halted at 11/);
    expect(model.slots.map((s) => s.type)).toEqual(["applied", "missing", "this"]);
  });

  it("points at the record in review that holds the next number, and counts everyone behind it", () => {
    const model = describeSequence(testRecord({ heldOnKey: [held(11), held(14)] }), "invoice-417", 12);
    expect(model.halt).toBe("held");
    expect(model.haltingHeld.map((h) => h.id)).toEqual(["held-11"]);
    expect(model.inReviewWithinGap.map((h) => h.id)).toEqual(["held-11"]);
    expect(model.waiting).toHaveLength(2);
    expect(model.slots.map((s) => s.type)).toEqual(["applied", "held", "this", "missing", "held"]);
  });

  it("says this record halts the key when it is next and others wait behind it", () => {
    const record = testRecord({ sequence: 11, heldOnKey: [held(12), held(14)] });
    const model = describeSequence(record, "invoice-417", 11);
    expect(model.halt).toBe("this");
    expect(model.missing).toBeNull();
    expect(model.waiting).toHaveLength(2);
    expect(model.position).toMatch(/^Next in line/);
  });

  it("does not call a record stale once its own effect is applied", () => {
    const record = testRecord({
      status: "resolved",
      sequence: 2,
      effectKey: "k",
      sequenceState: { sequenceKey: "invoice-417", lastSequence: 2, updatedAt: "2026-11-30T04:00:00.000Z" },
      journal: {
        effectKey: "k",
        state: "applied",
        messageId: "m",
        sequenceKey: "invoice-417",
        sequence: 2,
        providerRef: "p",
        leaseExpiresAt: null,
        startedAt: "2026-11-30T04:00:00.000Z",
        updatedAt: "2026-11-30T04:00:00.000Z",
      },
    });
    const model = describeSequence(record, "invoice-417", 2);
    expect(model.position).toMatch(/^Applied/);
    expect(model.halt).toBe("nothing");
    expect(model.slots.map((s) => s.type)).toEqual(["applied", "next"]);
  });

  it("calls an open record behind the key stale", () => {
    const model = describeSequence(testRecord({ sequence: 3, category: "manual-review" }), "invoice-417", 3);
    expect(model.position).toMatch(/^Behind the key/);
    expect(model.missing).toBeNull();
  });

  it("treats a key without state as starting from nothing", () => {
    const model = describeSequence(testRecord({ sequence: 4, sequenceState: null }), "invoice-502", 4);
    expect(model.last).toBe(0);
    expect(model.missing).toEqual({ from: 1, to: 3 });
  });
});

describe("buildSlots", () => {
  it("folds a huge missing range into one slot without iterating it", () => {
    const slots = buildSlots(5, 9_000_000_000_000, []);
    expect(slots).toEqual([
      { type: "applied", last: 5 },
      { type: "missing", from: 6, to: 6 },
      { type: "missing", from: 7, to: 8_999_999_999_999 },
      { type: "this", n: 9_000_000_000_000 },
    ]);
  });
});
