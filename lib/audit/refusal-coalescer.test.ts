import { describe, expect, it } from "vitest";
import { MAX_DISTINCT, MAX_WINDOWS, RefusalCoalescer, type RefusalRepeats } from "./refusal-coalescer";

function setup(windowMs = 60_000) {
  let clock = 1_000_000;
  const flushed: RefusalRepeats<string>[] = [];
  const coalescer = new RefusalCoalescer<string>({
    windowMs,
    now: () => clock,
    flush: (r) => flushed.push(r),
    timers: false,
  });
  return {
    coalescer,
    flushed,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe("RefusalCoalescer", () => {
  it("writes the first at once and counts the repeats within the window into one summary", () => {
    const { coalescer, flushed, advance } = setup();
    expect(coalescer.offer("k", "first", { path: "/a" })).toBe("write");
    for (let i = 0; i < 2879; i++) {
      advance(20);
      expect(coalescer.offer("k", `again ${i}`, { path: "/a" })).toBe("counted");
    }
    expect(flushed).toEqual([]);
    coalescer.closeAll();
    expect(flushed).toEqual([
      {
        first: "first",
        count: 2879,
        firstAt: 1_000_020,
        lastAt: 1_000_000 + 2879 * 20,
        reviewIds: [null],
        paths: ["/a"],
      },
    ]);
    expect(coalescer.openWindows).toBe(0);
  });

  it("a window without repeats writes nothing more when it ends", () => {
    const { coalescer, flushed } = setup();
    expect(coalescer.offer("k", "only", {})).toBe("write");
    coalescer.close("k");
    expect(flushed).toEqual([]);
  });

  it("keys are separate: another actor, route or reason opens its own window", () => {
    const { coalescer } = setup();
    expect(["a", "b", "c"].map((k) => coalescer.offer(k, k, {}))).toEqual(["write", "write", "write"]);
    expect(coalescer.offer("a", "a2", {})).toBe("counted");
  });

  it("after the window, the next refusal is written at once and the earlier repeats are flushed first", () => {
    const { coalescer, flushed, advance } = setup(60_000);
    coalescer.offer("k", "first", {});
    advance(59_999);
    expect(coalescer.offer("k", "repeat", {})).toBe("counted");
    advance(1);
    expect(coalescer.offer("k", "next window", {})).toBe("write");
    expect(flushed.map((f) => [f.first, f.count])).toEqual([["first", 1]]);
  });

  it("keeps at most MAX_DISTINCT record ids and paths, however many repeats", () => {
    const { coalescer, flushed } = setup();
    coalescer.offer("k", "first", { reviewId: "r0", path: "/p0" });
    for (let i = 1; i <= 100; i++) coalescer.offer("k", "again", { reviewId: `r${i}`, path: `/p${i}` });
    coalescer.closeAll();
    expect(flushed[0]!.count).toBe(100);
    expect(flushed[0]!.reviewIds).toHaveLength(MAX_DISTINCT);
    expect(flushed[0]!.paths).toHaveLength(MAX_DISTINCT);
  });

  it("past MAX_WINDOWS open windows, the oldest is closed early: its count is written, not dropped", () => {
    const { coalescer, flushed } = setup();
    coalescer.offer("oldest", "first", {});
    coalescer.offer("oldest", "repeat", {});
    for (let i = 1; i < MAX_WINDOWS; i++) coalescer.offer(`k${i}`, "x", {});
    expect(flushed).toEqual([]);
    coalescer.offer("one more", "x", {});
    expect(flushed.map((f) => [f.first, f.count])).toEqual([["first", 1]]);
    expect(coalescer.openWindows).toBe(MAX_WINDOWS);
  });

  it("with timers, a window closes by itself once its time is up", async () => {
    const flushed: RefusalRepeats<string>[] = [];
    const coalescer = new RefusalCoalescer<string>({ windowMs: 30, flush: (r) => flushed.push(r) });
    coalescer.offer("k", "first", {});
    coalescer.offer("k", "repeat", {});
    await new Promise((r) => setTimeout(r, 80));
    expect(flushed.map((f) => f.count)).toEqual([1]);
    expect(coalescer.openWindows).toBe(0);
  });
});
