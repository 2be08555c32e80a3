import { describe, expect, it } from "vitest";
import { MAX_EXPIRES_IN_SECONDS, parseExpiresIn } from "./expires-in";

describe("parseExpiresIn", () => {
  it("reads hours, days and weeks", () => {
    expect(parseExpiresIn("12h")).toBe(12 * 3600);
    expect(parseExpiresIn("30d")).toBe(30 * 86_400);
    expect(parseExpiresIn(" 2W ")).toBe(14 * 86_400);
  });

  it("refuses zero, fractions, other units, missing units and more than ten years", () => {
    for (const bad of ["0d", "1.5d", "30", "30m", "30 days", "-1d", "", "d", "3651d"]) {
      expect(parseExpiresIn(bad), bad).toBeNull();
    }
    expect(parseExpiresIn("3650d")).toBe(MAX_EXPIRES_IN_SECONDS);
  });
});
