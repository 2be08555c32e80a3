import { describe, expect, it } from "vitest";
import { buildRequest, fieldOfIssue, newDraft } from "./new-operation-draft";

const selection = {
  type: "group" as const,
  group: { kind: "invoice.reminder", reason: "sequence-gap", errorClass: null },
};
const NOW = Date.parse("2026-11-30T10:00:00Z");

describe("buildRequest", () => {
  it("sends the defaults of a replay: rate 50, a canary of 10, auto-pause 20% after 20 outcomes", () => {
    const result = buildRequest({ ...newDraft("replay"), reason: " after the fix " }, selection, NOW);
    expect(result).toEqual({
      body: {
        action: "replay",
        reason: "after the fix",
        selection,
        ratePerSecond: 50,
        canarySize: 10,
        autoPause: { threshold: 0.2, minOutcomes: 20 },
      },
    });
  });

  it("proposes a canary above 0, never more than the records selected", () => {
    expect(newDraft("replay", 3).canarySize).toBe("3");
    expect(newDraft("replay", 5000).canarySize).toBe("10");
    expect(newDraft("note").canarySize).toBe("10");
  });

  it("sends autoPause null when it is turned off, and none at all for a note", () => {
    const off = buildRequest({ ...newDraft("replay"), reason: "x", autoPauseOn: false }, selection, NOW);
    expect("body" in off && off.body.autoPause).toBeNull();
    const note = buildRequest({ ...newDraft("note"), reason: "x", runMode: "at" }, selection, NOW);
    expect("body" in note && note.body).not.toHaveProperty("autoPause");
    expect("body" in note && note.body).not.toHaveProperty("runAt");
  });

  it("names every field that is wrong", () => {
    const result = buildRequest(
      {
        ...newDraft("replay"),
        ratePerSecond: "0",
        canarySize: "1.5",
        thresholdPercent: "120",
        minOutcomes: "0",
        runMode: "at",
        runAtLocal: "",
      },
      selection,
      NOW,
    );
    expect("errors" in result && Object.keys(result.errors).sort()).toEqual([
      "autoPause.minOutcomes",
      "autoPause.threshold",
      "canarySize",
      "ratePerSecond",
      "reason",
      "runAt",
    ]);
  });

  it("refuses a time in the past", () => {
    const result = buildRequest(
      { ...newDraft("replay"), reason: "x", runMode: "at", runAtLocal: "2020-01-01T10:00" },
      selection,
      NOW,
    );
    expect("errors" in result && result.errors.runAt).toBeDefined();
  });
});

describe("fieldOfIssue", () => {
  it("puts selection issues on the selection", () => {
    expect(fieldOfIssue("selection.ids.3")).toBe("selection");
    expect(fieldOfIssue("autoPause.threshold")).toBe("autoPause.threshold");
    expect(fieldOfIssue("")).toBe("form");
  });
});
