import { describe, expect, it } from "vitest";
import { jsonChanges } from "./json-diff";

describe("jsonChanges", () => {
  it("names changed, added and removed fields by their path", () => {
    const before = { id: "m", payload: { invoiceId: 805, schema: "2021-03", old: true } };
    const after = { id: "m", payload: { invoiceId: "805", schema: "2021-03", note: "x" } };
    const byPath = jsonChanges(before, after).sort((a, b) => a.path.localeCompare(b.path));
    expect(byPath).toEqual([
      { path: "payload.invoiceId", kind: "changed", before: 805, after: "805" },
      { path: "payload.note", kind: "added", after: "x" },
      { path: "payload.old", kind: "removed", before: true },
    ]);
  });

  it("quotes keys that are not identifiers and indexes arrays", () => {
    const changes = jsonChanges({ "a-b": 1, list: [1, 2] }, { "a-b": 2, list: [1, 2, 3] });
    expect(changes.map((c) => c.path)).toEqual(['["a-b"]', "list[2]"]);
  });

  it("reports nothing for equal values and a whole-value change for different types", () => {
    expect(jsonChanges({ a: 1 }, { a: 1 })).toEqual([]);
    expect(jsonChanges("text", { a: 1 })).toEqual([
      { path: "(whole value)", kind: "changed", before: "text", after: { a: 1 } },
    ]);
  });
});
