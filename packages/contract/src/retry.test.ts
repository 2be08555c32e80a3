import { describe, expect, it } from "vitest";
import { invoiceReminderKind } from "./kinds.ts";
import { NEVER_TEMPORARY_REASONS, nextAttempt } from "./retry.ts";

const policy = invoiceReminderKind.temporaryReasons;

describe("nextAttempt", () => {
  it("retries dependency-not-ready once, after 1000 ms", () => {
    expect(nextAttempt(0, "dependency-not-ready", policy)).toEqual({ action: "retry", delayMs: 1000 });
  });

  it.each([1, 2, 50])("stops dependency-not-ready with retry-limit after %i completed attempts", (attempts) => {
    expect(nextAttempt(attempts, "dependency-not-ready", policy)).toEqual({ action: "review", reason: "retry-limit" });
  });

  it("retries exactly up to the limit", () => {
    const three = { busy: { limit: 3, delayMs: 5 } };
    const actions = [0, 1, 2, 3].map((n) => nextAttempt(n, "busy", three).action);
    expect(actions).toEqual(["retry", "retry", "retry", "review"]);
  });

  it("never retries a temporary reason whose limit is 0", () => {
    expect(nextAttempt(0, "busy", { busy: { limit: 0, delayMs: 5 } })).toEqual({
      action: "review",
      reason: "retry-limit",
    });
  });

  it("sends a reason the kind does not declare to review under that reason", () => {
    expect(nextAttempt(0, "provider-rejected", policy)).toEqual({ action: "review", reason: "provider-rejected" });
  });

  it("never retries a repeated terminal error, however often it recurs", () => {
    const actions = Array.from({ length: 100 }, (_, n) => nextAttempt(n, "card-declined", policy));
    expect(actions.every((a) => a.action === "review" && a.reason === "card-declined")).toBe(true);
  });

  it.each(NEVER_TEMPORARY_REASONS)("keeps %s out of retry even when a kind's policy lists it", (reason) => {
    const permissive = { [reason]: { limit: 99, delayMs: 1 } };
    expect(nextAttempt(0, reason, permissive)).toEqual({ action: "review", reason });
  });

  it("guards every contract outcome", () => {
    expect([...NEVER_TEMPORARY_REASONS].sort()).toEqual(
      [
        "effect-result-unknown",
        "invalid-contract",
        "invalid-payload",
        "sequence-gap",
        "stale-or-conflicting",
        "unsupported-schema",
      ].sort(),
    );
  });

  it.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    "does not read %s from Object.prototype as a policy",
    (reason) => {
      expect(nextAttempt(0, reason, policy)).toEqual({ action: "review", reason });
    },
  );

  it("stops instead of retrying forever on a NaN attempt count", () => {
    expect(nextAttempt(Number.NaN, "dependency-not-ready", policy)).toEqual({
      action: "review",
      reason: "retry-limit",
    });
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, 1.5])("stops instead of retrying on a malformed limit %s", (limit) => {
    expect(nextAttempt(0, "busy", { busy: { limit, delayMs: 5 } })).toEqual({
      action: "review",
      reason: "retry-limit",
    });
  });
});
