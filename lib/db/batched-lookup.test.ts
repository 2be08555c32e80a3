import { describe, expect, it } from "vitest";
import { BatchedLookup } from "./batched-lookup";

// The joining rule alone, with a loader the test finishes by hand: no database needed.

function controlledLoader() {
  const queries: { keys: string[]; answer: (values: Record<string, number>) => void }[] = [];
  const load = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve) =>
      queries.push({ keys, answer: (values) => resolve(new Map(Object.entries(values))) }),
    );
  return { queries, load };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("BatchedLookup", () => {
  it("joins the calls made while a query runs into the next query, never into the running one", async () => {
    const { queries, load } = controlledLoader();
    const lookup = new BatchedLookup(load, { concurrency: 1 });
    const first = lookup.find("a");
    await tick();
    expect(queries.map((q) => q.keys)).toEqual([["a"]]);
    // "a" again while a's query runs: it must wait for a query of its own, sent after it asked.
    const again = lookup.find("a");
    const other = lookup.find("b");
    await tick();
    expect(queries).toHaveLength(1);
    queries[0]!.answer({ a: 1 });
    expect(await first).toBe(1);
    await tick();
    expect(queries.map((q) => q.keys)).toEqual([["a"], ["a", "b"]]);
    queries[1]!.answer({ a: 2 }); // what changed in between is seen: no cache
    expect(await again).toBe(2);
    expect(await other).toBeUndefined();
    expect(lookup.stats).toEqual({ queries: 2, calls: 3 });
  });

  it("fails every call of a failed query, and goes on with the next", async () => {
    let fail = true;
    const lookup = new BatchedLookup(async (keys: string[]) => {
      if (fail) throw new Error("down");
      return new Map(keys.map((k) => [k, k.length]));
    });
    await expect(lookup.find("abc")).rejects.toThrow("down");
    fail = false;
    expect(await lookup.find("abcd")).toBe(4);
  });
});
