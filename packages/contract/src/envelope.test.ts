import { describe, expect, it } from "vitest";
import { ENVELOPE_KEY_FIELDS, envelopeSchema, readEnvelopeKeys } from "./envelope.ts";

function message(): Record<string, unknown> {
  return {
    id: "msg-order-417",
    kind: "invoice.reminder",
    effectKey: "invoice-417:reminder",
    sequenceKey: "invoice-417",
    sequence: 4,
    payload: { invoiceId: "417", schema: "2021-03" },
  };
}

function failingPaths(raw: unknown): string[] {
  const result = envelopeSchema.safeParse(raw);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join("."));
}

describe("envelopeSchema", () => {
  it("accepts the worked example", () => {
    expect(envelopeSchema.safeParse(message()).success).toBe(true);
  });

  it("keeps unknown top-level and payload fields instead of stripping them", () => {
    const raw = { ...message(), traceId: "t-1", payload: { invoiceId: "417", schema: "2021-03", note: "x" } };
    const result = envelopeSchema.safeParse(raw);
    expect(result.success && result.data).toEqual(raw);
  });

  it.each(ENVELOPE_KEY_FIELDS)("rejects a message without %s and names the field", (field) => {
    const raw = message();
    delete raw[field];
    expect(failingPaths(raw)).toEqual([field]);
  });

  it.each(["id", "kind", "effectKey", "sequenceKey"])("rejects an empty %s", (field) => {
    expect(failingPaths({ ...message(), [field]: "" })).toEqual([field]);
  });

  it.each([
    ["0", 0],
    ["-1", -1],
    ["1.5", 1.5],
    ['"3"', "3"],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["2**53 (not a safe integer)", 2 ** 53],
    ["null", null],
  ])("rejects sequence %s", (_label, sequence) => {
    expect(failingPaths({ ...message(), sequence })).toEqual(["sequence"]);
  });

  it("accepts sequence 1, the smallest valid one", () => {
    expect(failingPaths({ ...message(), sequence: 1 })).toEqual([]);
  });

  it.each([
    ["missing", undefined, "payload"],
    ["an array", [], "payload"],
    ["a string", "417", "payload"],
    ["without schema", { invoiceId: "417" }, "payload.schema"],
    ["with an empty schema", { invoiceId: "417", schema: "" }, "payload.schema"],
  ])("rejects a payload %s", (_label, payload, path) => {
    expect(failingPaths({ ...message(), payload })).toEqual([path]);
  });
});

describe("ENVELOPE_KEY_FIELDS", () => {
  it("lists the envelope keys in contract order", () => {
    expect(ENVELOPE_KEY_FIELDS).toEqual(["id", "kind", "effectKey", "sequenceKey", "sequence"]);
  });
});

describe("readEnvelopeKeys", () => {
  it("reads every key of a valid message, schema from the payload", () => {
    expect(readEnvelopeKeys(message())).toEqual({
      id: "msg-order-417",
      kind: "invoice.reminder",
      effectKey: "invoice-417:reminder",
      sequenceKey: "invoice-417",
      sequence: 4,
      schema: "2021-03",
    });
  });

  it.each([null, undefined, "msg-order-417", 42, [message()]])("gives all nulls for a non-object %j", (raw) => {
    expect(readEnvelopeKeys(raw)).toEqual({
      id: null,
      kind: null,
      effectKey: null,
      sequenceKey: null,
      sequence: null,
      schema: null,
    });
  });

  it("salvages the usable keys of an invalid message", () => {
    const raw = { id: "msg-1", kind: "", effectKey: 7, sequenceKey: "invoice-417", payload: "v1" };
    expect(readEnvelopeKeys(raw)).toEqual({
      id: "msg-1",
      kind: null,
      effectKey: null,
      sequenceKey: "invoice-417",
      sequence: null,
      schema: null,
    });
  });

  it.each([0, -1, 1.5, "3", Number.NaN, 2 ** 53, undefined])("reads sequence %j as null", (sequence) => {
    expect(readEnvelopeKeys({ ...message(), sequence }).sequence).toBeNull();
  });

  it("reads an empty payload.schema as null", () => {
    expect(readEnvelopeKeys({ ...message(), payload: { schema: "" } }).schema).toBeNull();
  });
});
