import { describe, expect, it } from "vitest";
import { grantLabel, grantsLabel } from "./grant-label";

describe("grant labels", () => {
  it("a scoped grant names its domain; a global one is the role alone, listed first", () => {
    expect(grantLabel({ role: "owner", domain: "payments" })).toBe("owner · payments");
    expect(grantLabel({ role: "auditor", domain: null })).toBe("auditor");
    expect(
      grantsLabel([
        { role: "support", domain: "messaging" },
        { role: "owner", domain: "payments" },
        { role: "auditor", domain: null },
      ]),
    ).toBe("auditor, owner · payments, support · messaging");
  });
});
