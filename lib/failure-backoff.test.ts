import { describe, expect, it } from "vitest";
import { FailureBackoff } from "./failure-backoff";

describe("FailureBackoff", () => {
  it("doubles with each failure in a row up to its cap, and starts over after a success", () => {
    const backoff = new FailureBackoff(1_000, 5_000);
    expect([backoff.failed(), backoff.failed(), backoff.failed(), backoff.failed()]).toEqual([
      1_000, 2_000, 4_000, 5_000,
    ]);
    expect(backoff.failures).toBe(4);
    backoff.succeeded();
    expect(backoff.failures).toBe(0);
    expect(backoff.failed()).toBe(1_000);
  });
});
