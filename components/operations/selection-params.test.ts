import { describe, expect, it } from "vitest";
import { newOperationHref, readNewOperationParams } from "./selection-params";

const A = "0b7e3c1a-1111-4222-8333-444455556666";
const B = "0b7e3c1a-1111-4222-8333-444455557777";

function read(href: string) {
  const search = new URL(href, "http://x").searchParams;
  return readNewOperationParams((key) => search.get(key));
}

describe("new-operation links", () => {
  it("round-trip ids, a filter and a cause", () => {
    expect(read(newOperationHref("cancel", { type: "ids", ids: [A, B] }))).toEqual({
      action: "cancel",
      selection: { type: "ids", ids: [A, B] },
      problem: null,
    });
    const filter = { status: "open,replaying", kind: "invoice.reminder", errorClass: "(none)", q: "a&b=c" };
    expect(read(newOperationHref("replay", { type: "filter", filter })).selection).toEqual({ type: "filter", filter });
    const group = { kind: null, reason: "sequence-gap", errorClass: "ETIMEDOUT" };
    expect(read(newOperationHref("note", { type: "group", group })).selection).toEqual({ type: "group", group });
  });

  it("keep ids readable in the address", () => {
    expect(newOperationHref("replay", { type: "ids", ids: [A, B] })).toBe(
      `/operations/new?action=replay&ids=${A},${B}`,
    );
  });

  it("report what cannot be used instead of guessing", () => {
    expect(read("/operations/new?action=replay").problem).toBe("No records are chosen yet.");
    expect(read("/operations/new?ids=not-an-id").problem).toMatch(/not record ids/);
    expect(read("/operations/new?filter=%7B%7D").problem).toMatch(/empty/);
    expect(read("/operations/new?group=%7B%22kind%22%3A1%7D").problem).toMatch(/not readable/);
    expect(read(`/operations/new?ids=${A}&filter=%7B%7D`).problem).toMatch(/more than one/);
    expect(read(`/operations/new?action=delete&ids=${A}`).action).toBe("replay");
  });

  it("keep only the list's filters", () => {
    const params = read(
      `/operations/new?filter=${encodeURIComponent(JSON.stringify({ kind: "k", view: "groups", limit: "5" }))}`,
    );
    expect(params.selection).toEqual({ type: "filter", filter: { kind: "k" } });
  });

  it("keep the queue's Mine (assignee=me) with the other filters: dropping it would select everyone's records", () => {
    const filter = { status: "open", kind: "k", assignee: "me" };
    expect(read(newOperationHref("note", { type: "filter", filter })).selection).toEqual({ type: "filter", filter });
    expect(read(newOperationHref("note", { type: "filter", filter: { assignee: "me" } })).selection).toEqual({
      type: "filter",
      filter: { assignee: "me" },
    });
  });
});
