/**
 * A live worker keeps the replays it claimed while it works through them: its claims are renewed
 * every third of the lease, so a second worker never takes over a replay whose first holder is
 * slow but alive (scale-out under load: a 30 s lease ran out under a loaded, live worker's batch).
 * A claim that already ran out is not renewed: its holder lets it go.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ReplayWorker, type ConsumerRuntime, type Outcome } from "@review-console/consumer";
import type { Actor } from "@/lib/access";
import { claimDueReplays, renewClaims } from "@/lib/replays";
import { performAction } from "@/lib/actions";
import { intakeReports, reportSchema } from "@/lib/reviews";
import { consumerActor, inProcessDesk } from "@/testing/worker/in-process";
import { log } from "@/lib/log";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const owner: Actor = { kind: "user", id: "owner-1", label: "user:owner@test", role: "owner" };
const unique = () => Math.random().toString(36).slice(2, 8);

/** `count` held records of a kind of their own (one sequence key each), each with a replay due now. */
async function scheduledReplays(kind: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = `${kind}-${i}`;
    const message = { id: `msg-${key}`, kind, effectKey: `${key}:1`, sequenceKey: key, sequence: 1, payload: {} };
    const input = reportSchema.parse({
      category: "sequence-gap",
      reason: "sequence-gap",
      requiredCheck: "find it",
      attempts: 1,
      source: { transport: "test" },
      message,
    });
    const [record] = await intakeReports([{ input, rawMessage: JSON.stringify(message) }], consumerActor("reporter"));
    const acted = await performAction(
      record!.id,
      { action: "replay", expectedVersion: 1, reason: "predecessor arrived", checkDone: true } as never,
      owner,
    );
    expect(acted).toMatchObject({ ok: true });
    ids.push(record!.id);
  }
  return ids;
}

/** A runtime whose every replay takes `ms` and is then found already applied. */
function slowRuntime(name: string, kind: string, ms: number): ConsumerRuntime {
  return {
    name,
    desk: inProcessDesk(name),
    log,
    kinds: () => [kind],
    async process(): Promise<Outcome> {
      await sleep(ms);
      return { type: "duplicate-suppressed", because: "applied before" } as Outcome;
    },
  } as unknown as ConsumerRuntime;
}

describe("replay claims", () => {
  it("a slow live worker keeps its batch past the lease; a second worker takes none of it", async () => {
    const kind = `renew.${unique()}`;
    await scheduledReplays(kind, 4);
    // 4 replays of 2.2 s each: 8.8 s of work on a 5 s lease.
    const first = new ReplayWorker(slowRuntime("worker-a", kind, 2200), { leaseSeconds: 5, limit: 4 });
    const second = new ReplayWorker(slowRuntime("worker-b", kind, 10), { leaseSeconds: 5, limit: 4 });
    const done = first.runOnce();
    let takenBySecond = 0;
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      takenBySecond += await second.runOnce();
      await sleep(250);
    }
    expect(await done).toBe(4);
    expect(takenBySecond, "replays the second worker ran while the first still held them").toBe(0);
    const claims = await sql(
      `SELECT r.claims, r.claimed_by, r.state::text AS state FROM replays r
         JOIN review_records rr ON rr.id = r.review_id WHERE rr.kind = $1`,
      [kind],
    );
    expect(claims).toHaveLength(4);
    for (const claim of claims)
      expect(claim).toMatchObject({ claims: 1, claimed_by: "worker-a", state: "duplicate-suppressed" });
  }, 30_000);

  it("renews only live claims of their own holder", async () => {
    const kind = `renew.${unique()}`;
    await scheduledReplays(kind, 2);
    const holder = consumerActor("holder");
    const claimed = await claimDueReplays({ consumer: "holder", kinds: [kind], limit: 2, leaseSeconds: 5 }, holder);
    expect(claimed).toHaveLength(2);
    const [live, expired] = claimed.map((c) => c.replayId);
    await sql(`UPDATE replays SET claim_expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
    const before = Date.now();

    // Another actor, or the same actor under another consumer name, renews nothing.
    expect(await renewClaims({ consumer: "holder", replayIds: [live!] }, consumerActor("other"))).toEqual([]);
    expect(await renewClaims({ consumer: "other", replayIds: [live!] }, holder)).toEqual([]);

    const renewed = await renewClaims({ consumer: "holder", replayIds: [live!, expired!], leaseSeconds: 60 }, holder);
    expect(renewed.map((r) => r.replayId)).toEqual([live]);
    expect(renewed[0]!.claimExpiresAt.getTime()).toBeGreaterThan(before + 50_000);
  });
});
