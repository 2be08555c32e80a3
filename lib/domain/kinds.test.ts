import { describe, expect, it } from "vitest";
import { KIND_PATTERN, matchDomain } from "./kinds";

const patterns = [
  { pattern: "invoice.*", domain: "payments" },
  { pattern: "card.charge", domain: "payments" },
  { pattern: "invoice.reminder", domain: "messaging" },
  { pattern: "invoice.reminder.*", domain: "archive" },
  { pattern: "email.*", domain: "messaging" },
];

describe("matchDomain", () => {
  it("an exact pattern beats any prefix", () => {
    expect(matchDomain("invoice.reminder", patterns)).toBe("messaging");
    expect(matchDomain("card.charge", patterns)).toBe("payments");
  });
  it("the longest matching prefix wins", () => {
    expect(matchDomain("invoice.reminder.sms", patterns)).toBe("archive");
    expect(matchDomain("invoice.paid", patterns)).toBe("payments");
  });
  it("a prefix does not match its own stem, nor a kind that merely starts alike", () => {
    expect(matchDomain("invoice", patterns)).toBeNull();
    expect(matchDomain("invoices.paid", patterns)).toBeNull();
    expect(matchDomain("card.charge.refund", patterns)).toBeNull();
  });
  it("no kind, no domain", () => {
    expect(matchDomain(null, patterns)).toBeNull();
    expect(matchDomain("", patterns)).toBeNull();
  });
  it("patterns are words with an optional trailing .*", () => {
    for (const ok of ["card.charge", "invoice.*", "a", "a_b:c-d.e"]) expect(KIND_PATTERN.test(ok)).toBe(true);
    for (const bad of ["*", "invoice*", "invoice.*.x", ".x", "a..b", "a b", "inv%", ""])
      expect(KIND_PATTERN.test(bad)).toBe(false);
  });
});
