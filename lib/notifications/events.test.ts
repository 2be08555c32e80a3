import { describe, expect, it } from "vitest";
import { endpointWants, eventsOfEntry, type LogEntry, standardPayload } from "./events";

const at = new Date("2026-12-02T05:00:00.000Z");
const entry = (action: string, details: unknown = {}, extra: Partial<LogEntry> = {}): LogEntry => ({
  seq: "41",
  at,
  actor: "system:operations",
  action,
  reviewId: null,
  effectKey: null,
  reason: null,
  details,
  ...extra,
});

describe("eventsOfEntry", () => {
  it("maps a first report with a cause never seen to cause.new, in the record's domain", () => {
    const events = eventsOfEntry(
      entry("review.reported", { category: "manual-review", kind: "card.charge" }, { reviewId: "r1", reason: "x" }),
      { recordDomain: "payments", newCause: { kind: "card.charge", reason: "x", errorClass: "ETIMEDOUT" } },
    );
    expect(events).toEqual([
      {
        key: "log:41:cause.new",
        type: "cause.new",
        domains: ["payments"],
        occurredAt: at,
        data: {
          seq: "41",
          reviewId: "r1",
          kind: "card.charge",
          reason: "x",
          errorClass: "ETIMEDOUT",
          category: "manual-review",
          domain: "payments",
        },
      },
    ]);
  });

  it("maps a report of a known cause to nothing, unless its effect's result is unknown", () => {
    expect(eventsOfEntry(entry("review.reported", { category: "sequence-gap" }), { recordDomain: null })).toEqual([]);
    const unknown = eventsOfEntry(
      entry("review.reported", { category: "effect-result-unknown", kind: "sms.send" }, { effectKey: "e1" }),
      { recordDomain: "messaging" },
    );
    expect(unknown.map((e) => [e.type, e.domains, e.data.effectKey])).toEqual([
      ["effect-result-unknown.reported", ["messaging"], "e1"],
    ]);
    // A report again of the same record is the same unknown: no second event.
    expect(eventsOfEntry(entry("review.reported-again", { category: "effect-result-unknown" }))).toEqual([]);
  });

  it("maps an auto-pause and a completion or abort to operation events in the operation's domains", () => {
    const paused = eventsOfEntry(
      entry("operation.auto-paused", { operationId: "o1" }, { reason: "auto-pause: 3 of 4" }),
      {
        operationDomains: ["b", "a", "b"],
      },
    );
    expect(paused.map((e) => [e.type, e.domains, e.data.reason])).toEqual([
      ["operation.auto-paused", ["a", "b"], "auto-pause: 3 of 4"],
    ]);
    expect(eventsOfEntry(entry("operation.completed", { operationId: "o1" }))[0]).toMatchObject({
      type: "operation.finished",
      domains: [],
      data: { operationId: "o1", outcome: "completed" },
    });
    expect(eventsOfEntry(entry("operation.aborted", { operationId: "o1" }))[0]?.data.outcome).toBe("aborted");
    // A person's pause is not an auto-pause.
    expect(eventsOfEntry(entry("operation.paused", { operationId: "o1" }))).toEqual([]);
  });

  it("maps approval.requested by name: one domain, or the domains of a decision spanning several", () => {
    const one = eventsOfEntry(
      entry("approval.requested", {
        approvalId: "a1",
        domain: "payments",
        decision: { action: "cancel" },
        requestedBy: "user:x",
      }),
    );
    expect(one.map((e) => [e.type, e.domains, e.data.requestedBy])).toEqual([
      ["approval.requested", ["payments"], "user:x"],
    ]);
    const several = eventsOfEntry(
      entry("approval.requested", { approvalId: "a2", domain: null, domains: ["m", "p", 3] }),
    );
    expect(several[0]?.domains).toEqual(["m", "p"]);
    expect(eventsOfEntry(entry("approval.approved", { approvalId: "a1", domain: "payments" }))).toEqual([]);
  });

  it("ignores entries whose details are not an object", () => {
    expect(eventsOfEntry(entry("approval.requested", null))[0]?.domains).toEqual([]);
    expect(eventsOfEntry(entry("review.reported", [1, 2]))).toEqual([]);
  });
});

describe("endpointWants", () => {
  const [event] = eventsOfEntry(entry("approval.requested", { domain: "payments" }));
  it("takes an event of its types in its domain, or any domain's when it has none", () => {
    expect(endpointWants({ domain: null, events: ["approval.requested"] }, event!)).toBe(true);
    expect(endpointWants({ domain: "payments", events: ["approval.requested"] }, event!)).toBe(true);
    expect(endpointWants({ domain: "messaging", events: ["approval.requested"] }, event!)).toBe(false);
    expect(endpointWants({ domain: null, events: ["cause.new"] }, event!)).toBe(false);
  });
});

describe("standardPayload", () => {
  it("is {type, timestamp, data}", () => {
    const [event] = eventsOfEntry(entry("operation.completed", { operationId: "o1" }));
    expect(Object.keys(standardPayload(event!))).toEqual(["type", "timestamp", "data"]);
    expect(standardPayload(event!).timestamp).toBe("2026-12-02T05:00:00.000Z");
  });
});
