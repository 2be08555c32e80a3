import { describe, expect, it } from "vitest";
import { Batcher, batchSettings } from "./batcher.ts";

/** A batcher whose batches are recorded and answered when the test says so. */
function recording(maxMessages: number, lingerMs = 5) {
  const batches: string[][] = [];
  const finish: (() => void)[] = [];
  const batcher = new Batcher<string, string>({ maxMessages, lingerMs }, async (items) => {
    batches.push(items);
    const done = new Promise<void>((resolve) => finish.push(resolve));
    return items.map((item) => done.then(() => `done ${item}`));
  });
  const submit = (item: string, key: string) => batcher.submit(item, [`sequence:${key}`]);
  return { batches, finish, submit };
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Batcher", () => {
  it("runs a full batch at once and a partial one after the linger", async () => {
    const { batches, finish, submit } = recording(3, 30);
    const answers = ["a", "b", "c", "d"].map((x) => submit(x, x));
    expect(batches).toEqual([["a", "b", "c"]]);
    await tick(60);
    expect(batches).toEqual([["a", "b", "c"], ["d"]]);
    finish.forEach((f) => f());
    expect(await Promise.all(answers)).toEqual(["done a", "done b", "done c", "done d"]);
  });

  it("never puts two items of one key in one batch, nor in two batches running at once", async () => {
    const { batches, finish, submit } = recording(10);
    const first = submit("k1-1", "k1");
    const second = submit("k1-2", "k1");
    void submit("k2-1", "k2");
    await tick();
    expect(batches).toEqual([["k1-1", "k2-1"]]);
    // The first batch has not answered: k1's next item waits, even past the linger.
    await tick();
    expect(batches).toHaveLength(1);
    finish[0]!();
    expect(await first).toBe("done k1-1");
    await tick();
    expect(batches).toEqual([["k1-1", "k2-1"], ["k1-2"]]);
    finish[1]!();
    expect(await second).toBe("done k1-2");
  });

  it("answers each item of a batch that fails with the failure", async () => {
    const batcher = new Batcher<string, string>({ maxMessages: 2, lingerMs: 1 }, () =>
      Promise.reject(new Error("database away")),
    );
    const results = await Promise.allSettled([batcher.submit("a", ["a"]), batcher.submit("b", ["b"])]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});

describe("batchSettings", () => {
  it("is off unless asked, and true means the defaults", () => {
    expect(batchSettings(undefined)).toBeNull();
    expect(batchSettings(false)).toBeNull();
    expect(batchSettings(true)).toEqual({ maxMessages: 32, lingerMs: 2 });
    expect(batchSettings({ maxMessages: 8 })).toEqual({ maxMessages: 8, lingerMs: 2 });
    expect(() => batchSettings({ maxMessages: 1.5 })).toThrow(/maxMessages/);
    expect(() => batchSettings({ lingerMs: -1 })).toThrow(/lingerMs/);
  });
});
