import { describe, expect, it } from "vitest";
import { arrayElements, objectMembers, sliceSpan, stringifyWithRaw } from "./raw-json.ts";

describe("raw JSON spans", () => {
  it("finds a member's exact text, keeping key order, big numbers and whitespace", () => {
    const message = `{ "zeta": 1, "10": "ten", "n": 12345678901234567890, "s": "a\\"}]b" }`;
    const body = `{"reason":"x","message":${message},"attempts":1}`;
    expect(sliceSpan(body, objectMembers(body, 0).get("message"))).toBe(message);
  });

  it("keeps the last of repeated keys, as JSON.parse does", () => {
    const body = `{"message":1,"message":[2, {"a":"]"}]}`;
    expect(sliceSpan(body, objectMembers(body, 0).get("message"))).toBe(`[2, {"a":"]"}]`);
  });

  it("splits an array into its elements", () => {
    const body = ` [ {"message":true} , "x\\\\" ,3.5e2,null,[[]] ] `;
    const spans = arrayElements(body, 0).map((s) => body.slice(s[0], s[1]));
    expect(spans).toEqual([`{"message":true}`, `"x\\\\"`, "3.5e2", "null", "[[]]"]);
  });

  it("splices raw members into a JSON object", () => {
    expect(stringifyWithRaw({ a: 1 }, { message: `{"10":1,"2":2}` })).toBe(`{"a":1,"message":{"10":1,"2":2}}`);
    expect(stringifyWithRaw({}, { message: "7" })).toBe(`{"message":7}`);
  });
});
