import { describe, expect, it } from "vitest";
import { Refusal } from "@/lib/domain/refusal";
import { refusalStatus } from "./refusal-response";
import { requireStorable } from "./storable";

function refusal(body: unknown): { message: string; issues: unknown } | null {
  try {
    requireStorable(body);
    return null;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    expect(refusalStatus(error)).toBe(400);
    expect(error.code).toBe("invalid-request");
    return { message: error.message, issues: error.issues };
  }
}

const nested = (depth: number) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe("requireStorable", () => {
  it("names the field holding a NUL, an unpaired surrogate or a key with either", () => {
    expect(refusal({ payload: { a: "x\u0000" } })).toEqual({
      message: "payload.a: must not contain NUL characters",
      issues: [{ path: "payload.a", message: "must not contain NUL characters" }],
    });
    expect(refusal({ providerRef: "\ud800" })?.message).toBe(
      "providerRef: contains a string with an unpaired UTF-16 surrogate",
    );
    expect(refusal({ detail: "ok", list: ["a", "b\udc00"] })?.message).toMatch(/^list\.1: /);
    expect(refusal({ payload: { "\u0000": 1 } })?.message).toBe("payload: contains a key with a NUL character");
    expect(refusal({ envelope: { "k\ud800": 1 } })?.message).toMatch(/^envelope: contains a key with an unpaired/);
    expect(refusal("\u0000")?.message).toBe("body: must not contain NUL characters");
  });

  it("refuses nesting past 64 levels, however deep, without recursion", () => {
    expect(refusal({ payload: nested(62) })).toBeNull();
    const deep = refusal({ payload: nested(100_000) });
    expect(deep?.message).toMatch(/^payload(\.a)+: nests deeper than 64 levels$/);
  });

  it("lets everything else through: any other Unicode, empty values, numbers", () => {
    expect(refusal({ reason: "Zoë 日本 🧾 \u2028", n: 1e308, none: null, list: [], obj: {} })).toBeNull();
  });
});
