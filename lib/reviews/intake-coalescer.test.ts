import { describe, expect, it } from "vitest";
import { type Actor } from "@/lib/access";
import type { IntakeResult, Report } from "./intake";
import { IntakeCoalescer } from "./intake-coalescer";

// The queuing rule alone: the runner is a function that records what it was given, so which
// reports share a statement, and who gets which answer, is checked without a database. The
// integration test (tests/integration/intake-coalescing.int.test.ts) runs the real statement.

const consumer: Actor = { kind: "token", id: "t1", label: "token:orders", role: "consumer" };
const other: Actor = { kind: "token", id: "t2", label: "token:billing", role: "consumer" };

const reportOf = (id: string): Report => ({
  input: {
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: "look",
    attempts: 1,
    message: { id },
  },
});
const idOf = (r: Report) => (r.input.message as { id: string }).id;

/** A runner whose statements finish when the test says so. */
function controlledRunner(fails: (reports: Report[]) => Error | null = () => null) {
  const calls: { ids: string[]; actor: string; finish: () => void }[] = [];
  const run = (reports: Report[], actor: Actor) =>
    new Promise<IntakeResult[]>((resolve, reject) => {
      calls.push({
        ids: reports.map(idOf),
        actor: actor.label,
        finish: () => {
          const error = fails(reports);
          if (error) reject(error);
          else resolve(reports.map((r) => ({ id: `rec-${idOf(r)}`, status: "open", created: true, attempts: 1 })));
        },
      });
    });
  return { calls, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("IntakeCoalescer", () => {
  it("sends a lone report at once, and joins the reports that arrive while statements run", async () => {
    const { calls, run } = controlledRunner();
    const coalescer = new IntakeCoalescer(run, { concurrency: 1 });
    const first = coalescer.intake(reportOf("a"), consumer);
    await tick();
    expect(calls.map((c) => c.ids)).toEqual([["a"]]);
    const later = ["b", "c", "d"].map((id) => coalescer.intake(reportOf(id), consumer));
    await tick();
    expect(calls).toHaveLength(1); // b, c and d wait for a's statement
    calls[0]!.finish();
    expect((await first).id).toBe("rec-a");
    await tick();
    expect(calls.map((c) => c.ids)).toEqual([["a"], ["b", "c", "d"]]);
    calls[1]!.finish();
    // Each caller gets its own record, in the order it asked.
    expect((await Promise.all(later)).map((r) => r.id)).toEqual(["rec-b", "rec-c", "rec-d"]);
  });

  it("never puts two actors' reports in one statement", async () => {
    const { calls, run } = controlledRunner();
    const coalescer = new IntakeCoalescer(run, { concurrency: 1 });
    const answers = [
      coalescer.intake(reportOf("a"), consumer),
      coalescer.intake(reportOf("b"), other),
      coalescer.intake(reportOf("c"), consumer),
      coalescer.intake(reportOf("d"), other),
    ];
    await tick();
    calls.forEach((c) => c.finish());
    await tick();
    calls.forEach((c) => c.finish());
    await Promise.all(answers);
    for (const call of calls) {
      const actors = new Set(call.ids.map((id) => (["a", "c"].includes(id) ? "token:orders" : "token:billing")));
      expect([...actors]).toEqual([call.actor]);
    }
  });

  it("caps a statement at maxReports", async () => {
    const { calls, run } = controlledRunner();
    const coalescer = new IntakeCoalescer(run, { concurrency: 1, maxReports: 2 });
    const answers = ["a", "b", "c", "d", "e"].map((id) => coalescer.intake(reportOf(id), consumer));
    for (let i = 0; i < 4; i++) {
      await tick();
      calls.at(-1)?.finish();
    }
    await Promise.all(answers);
    expect(calls.map((c) => c.ids)).toEqual([["a"], ["b", "c"], ["d", "e"]]);
  });

  it("when a shared statement fails, tries each report alone: only the one that fails alone fails", async () => {
    const poison = new Error("the database refused report b");
    const { calls, run } = controlledRunner((reports) => (reports.some((r) => idOf(r) === "b") ? poison : null));
    const coalescer = new IntakeCoalescer(run, { concurrency: 1 });
    const first = coalescer.intake(reportOf("a"), consumer);
    const shared = ["b", "c"].map((id) => coalescer.intake(reportOf(id), consumer).catch((error: unknown) => error));
    await tick();
    calls[0]!.finish();
    await first;
    await tick();
    calls[1]!.finish(); // [b, c] fails together
    await tick();
    expect(calls.slice(2).map((c) => c.ids)).toEqual([["b"], ["c"]]);
    calls.slice(2).forEach((c) => c.finish());
    const [b, c] = await Promise.all(shared);
    expect(b).toBe(poison);
    expect((c as IntakeResult).id).toBe("rec-c");
    expect(coalescer.stats.retriedAlone).toBe(2);
  });

  it("when the database does not answer, fails every report of the statement without trying again", async () => {
    const down = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const { calls, run } = controlledRunner(() => down);
    const coalescer = new IntakeCoalescer(run, { concurrency: 1 });
    const answers = ["a", "b", "c"].map((id) => coalescer.intake(reportOf(id), consumer).catch((e: unknown) => e));
    await tick();
    calls[0]!.finish();
    await tick();
    calls[1]!.finish();
    expect(await Promise.all(answers)).toEqual([down, down, down]);
    expect(calls).toHaveLength(2);
  });
});
