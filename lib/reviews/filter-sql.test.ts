import { describe, expect, it } from "vitest";
import { idPrefixRange } from "./filter-sql";

describe("idPrefixRange: the ids that start with a term, as a range of the primary key", () => {
  it("pads the start of a UUID with 0 and with f, letter case ignored", () => {
    expect(idPrefixRange("AB")).toEqual({
      from: "ab000000-0000-0000-0000-000000000000",
      to: "abffffff-ffff-ffff-ffff-ffffffffffff",
    });
    expect(idPrefixRange("3f2a1c9e-8b")).toEqual({
      from: "3f2a1c9e-8b00-0000-0000-000000000000",
      to: "3f2a1c9e-8bff-ffff-ffff-ffffffffffff",
    });
    const whole = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
    expect(idPrefixRange(whole)).toEqual({ from: whole, to: whole });
  });

  it("is null for a term that is not the start of a UUID", () => {
    for (const term of ["xyz", "3f2a1c9e8b", "-3f2", "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b0", "ab cd", "timeout"]) {
      expect(idPrefixRange(term), term).toBeNull();
    }
  });
});
