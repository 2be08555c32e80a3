import { describe, expect, it } from "vitest";
import { canAnywhere, canIn, domainsWhere } from "./rules";

describe("domain-scoped permissions", () => {
  const scoped = [
    { role: "owner" as const, domain: "payments" },
    { role: "support" as const, domain: "messaging" },
  ];
  it("a scoped owner resolves in its domain only", () => {
    expect(canIn(scoped, "reviews.resolve", "payments")).toBe(true);
    expect(canIn(scoped, "reviews.resolve", "messaging")).toBe(false);
    expect(canIn(scoped, "reviews.confirm", "messaging")).toBe(true);
  });
  it("a record in no domain is for global grants only", () => {
    expect(canIn(scoped, "reviews.read", null)).toBe(false);
    expect(canIn([{ role: "auditor", domain: null }], "reviews.read", null)).toBe(true);
  });
  it("where a permission holds", () => {
    expect(domainsWhere(scoped, "reviews.read")).toEqual(["messaging", "payments"]);
    expect(domainsWhere(scoped, "reviews.resolve")).toEqual(["payments"]);
    expect(domainsWhere(scoped, "users.manage")).toEqual([]);
    expect(domainsWhere([...scoped, { role: "auditor", domain: null }], "reviews.read")).toBe("all");
    expect(canAnywhere(scoped, "reviews.resolve")).toBe(true);
    expect(canAnywhere(scoped, "audit.read")).toBe(true);
    expect(canAnywhere(scoped, "users.manage")).toBe(false);
  });
});
