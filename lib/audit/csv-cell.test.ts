import { describe, expect, it } from "vitest";
import { neutraliseFormula } from "./csv-cell";

describe("neutraliseFormula", () => {
  it.each([
    "=cmd|' /C calc'!A0",
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\tx",
    "\r+1",
    "\n=1+1",
    "  =1",
    "\uFF1D1+1",
    "\uFF0B1",
    "\uFF0D1",
    "\uFF20A1",
  ])("prefixes %j with '", (value) => {
    expect(neutraliseFormula(value)).toBe(`'${value}`);
  });

  it.each(["note\n=cmd", "a=b", "", "'=already text", '{"a":1}', "review.reported", "1-2"])(
    "leaves %j alone",
    (value) => {
      expect(neutraliseFormula(value)).toBe(value);
    },
  );
});
