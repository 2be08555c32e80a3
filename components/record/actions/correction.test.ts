import { describe, expect, it } from "vitest";
import { missingEnvelopeFields } from "../format";
import { testRecord } from "../test-record";
import { checkPayload, proposedEnvelope, suppliedEnvelope } from "./correction";
import { newDraft } from "./draft";
import { groupIssues } from "./field-errors";

describe("checkPayload", () => {
  it("reports JSON syntax first", () => {
    expect(checkPayload("{", "invoice.reminder").state).toBe("syntax");
  });
  it("requires an object", () => {
    expect(checkPayload("[1]", "invoice.reminder").state).toBe("not-object");
  });
  it("names the failing path of the kind's schema", () => {
    const check = checkPayload('{"invoiceId": 805, "schema": "2021-03"}', "invoice.reminder");
    expect(check.state).toBe("invalid");
    expect(check.state === "invalid" && check.issues.map((i) => i.path)).toEqual(["payload.invoiceId"]);
  });
  it("accepts a valid payload", () => {
    expect(checkPayload('{"invoiceId": "805", "schema": "2021-03"}', "invoice.reminder").state).toBe("valid");
  });
  it("waits for a kind when the envelope has none", () => {
    expect(checkPayload("{}", null).state).toBe("no-kind");
  });
});

describe("envelope supply", () => {
  const message = {
    id: "msg-802",
    kind: "invoice.reminder",
    effectKey: "e",
    sequenceKey: "k",
    sequence: "1",
    payload: {},
  };
  const record = testRecord({ message, messageText: JSON.stringify(message), sequence: null });

  it("offers only the fields the message lacks", () => {
    expect(missingEnvelopeFields(record)).toEqual(["sequence"]);
  });

  it("converts and checks the supplied sequence", () => {
    const draft = newDraft("correct-and-replay", record);
    expect(suppliedEnvelope(record, { ...draft, envelope: { sequence: "1.5" } }).errors).toHaveProperty(
      "envelope.sequence",
    );
    const ok = suppliedEnvelope(record, { ...draft, envelope: { sequence: " 7 " } });
    expect(ok).toEqual({ values: { sequence: 7 }, errors: {} });
    expect(proposedEnvelope(record, { schema: "2021-03" }, ok.values)).toMatchObject({
      id: "msg-802",
      effectKey: "e",
      sequence: 7,
      payload: { schema: "2021-03" },
    });
  });

  it("starts the editor from the latest revision's payload", () => {
    const revised = testRecord({
      revisions: [
        {
          number: 1,
          envelope: { ...message, payload: { invoiceId: "X", schema: "2021-03" } },
          reason: "r",
          createdBy: "u",
          createdAt: "2026-11-30T04:00:00.000Z",
        },
      ],
    });
    expect(JSON.parse(newDraft("correct-and-replay", revised).payloadText)).toEqual({
      invoiceId: "X",
      schema: "2021-03",
    });
  });
});

describe("groupIssues", () => {
  it("keys issues by form field and keeps payload paths", () => {
    expect(
      groupIssues([
        { path: "reason", message: "a reason is required" },
        { path: "payload.invoiceId", message: "must be a non-empty string" },
        { path: "envelope.sequence", message: "bad" },
      ]),
    ).toEqual({
      reason: ["a reason is required"],
      payload: ["payload.invoiceId: must be a non-empty string"],
      "envelope.sequence": ["bad"],
    });
  });
});
