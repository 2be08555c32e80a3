import { describe, expect, it } from "vitest";
import { may } from "./may";

const scoped = { role: "owner" as const, grants: [{ role: "owner" as const, domain: "payments" }] };
const global = { role: "owner" as const, grants: [{ role: "owner" as const, domain: null }] };

describe("may", () => {
  it("a scoped grant reaches its domain only; records in no domain take a global grant", () => {
    expect(may(scoped, "reviews.resolve", { domain: "payments" })).toBe(true);
    expect(may(scoped, "reviews.resolve", { domain: "billing" })).toBe(false);
    expect(may(scoped, "reviews.resolve", { domain: null })).toBe(false);
    expect(may(global, "reviews.resolve", { domain: null })).toBe(true);
  });

  it("several domains: every one of them; `(none)` is records in no domain", () => {
    expect(may(scoped, "reviews.resolve", { domains: ["payments"] })).toBe(true);
    expect(may(scoped, "reviews.resolve", { domains: ["payments", "(none)"] })).toBe(false);
    expect(may(global, "reviews.resolve", { domains: ["payments", "(none)"] })).toBe(true);
  });

  it("no target: anywhere; global-only permissions take a global grant", () => {
    expect(may(scoped, "reviews.read")).toBe(true);
    expect(may({ role: "auditor", grants: [{ role: "auditor", domain: "payments" }] }, "audit.read")).toBe(false);
    expect(may({ role: "consumer", grants: [] }, "reviews.read")).toBe(false);
    // The system's own actors (no grants) hold their role everywhere.
    expect(may({ role: "owner" }, "reviews.resolve", { domain: null })).toBe(true);
  });
});
