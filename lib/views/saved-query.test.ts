import { describe, expect, it } from "vitest";
import { savedQueryOf } from "./saved-query";

describe("savedQueryOf: a saved view's query in canonical form", () => {
  it("orders the parameters and comma lists one way, trims text, drops the page", () => {
    expect(savedQueryOf("?sort=-attempts&kind=%20a.b%20&status=resolved,open,open&cursor=x&limit=5")).toEqual({
      ok: true,
      query: "status=open,resolved&kind=a.b&sort=-attempts",
    });
    expect(savedQueryOf("view=groups&category=sequence-gap,manual-review")).toEqual({
      ok: true,
      query: "category=manual-review,sequence-gap&view=groups",
    });
    expect(savedQueryOf("")).toEqual({ ok: true, query: "" });
  });

  it("keeps the console's own words: every status, the grouped view, Mine", () => {
    expect(savedQueryOf("status=all&assignee=me")).toEqual({ ok: true, query: "status=all&assignee=me" });
    // The URL a person typed, re-encoded differently, is the same view.
    expect(savedQueryOf("q=late+fee&errorClass=(none)")).toEqual(savedQueryOf("errorClass=%28none%29&q=late%20fee"));
  });

  it("says what is wrong, by the list's own rules", () => {
    expect(savedQueryOf("status=shipped")).toMatchObject({ ok: false, problem: expect.stringMatching(/^status: /) });
    expect(savedQueryOf("colour=red")).toMatchObject({ ok: false, problem: expect.stringContaining("colour") });
    expect(savedQueryOf("kind=a&kind=b")).toEqual({ ok: false, problem: "kind is given more than once" });
    expect(savedQueryOf("view=cards")).toEqual({ ok: false, problem: "view must be groups" });
    expect(savedQueryOf("q=x")).toMatchObject({ ok: false, problem: expect.stringMatching(/^q: /) });
  });
});
