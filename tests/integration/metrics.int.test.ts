/**
 * GET /api/metrics (docs/decisions/0016-metrics.md): the state gauges read from counts kept by
 * triggers (they must equal a real GROUP BY, also after concurrent intake), the per-process
 * decisions counter (exactly the entries appended and committed), and the HTTP histogram.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { GET as metrics } from "@/app/api/metrics/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as outcome } from "@/app/api/v1/replays/[replayId]/outcome/route";
import { POST as claim } from "@/app/api/v1/replays/claim/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { type Actor } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { abortOperation, confirmOperation, dryRunOperation, createOperation, getOperation } from "@/lib/operations";
import { dispatchStep } from "@/lib/actions";
import { intakeReports } from "@/lib/reviews";
import type { ReportInput } from "@/lib/reviews";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const owner: Actor = { kind: "user", id: "metrics-owner", label: "user:metrics-owner@test", role: "owner" };
const consumerActor: Actor = { kind: "token", id: "metrics-consumer", label: "token:metrics", role: "consumer" };

async function scrape(token?: string) {
  const response = await metrics(
    new Request("http://localhost/api/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} }),
    { params: Promise.resolve({}) },
  );
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

let auditor = "";
/** The scrape's samples: `name{labels}` (as printed) -> value. */
async function samples(): Promise<Map<string, number>> {
  auditor ||= await tokenFor("auditor");
  const { status, text } = await scrape(auditor);
  expect(status).toBe(200);
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

/** The decisions counter per action, from a scrape. */
async function decisionCounts(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [key, value] of await samples()) {
    const match = /^review_console_decisions_total\{action="([^"]*)"\}$/.exec(key);
    if (match) out.set(match[1]!, value);
  }
  return out;
}

const input = (category: string, reason: string, id = `m-${Math.random()}`): ReportInput =>
  ({ category, reason, requiredCheck: "look", attempts: 1, message: { id } }) as ReportInput;

/** What the triggers kept, and what the tables hold now: both as sorted `a|b|c=n` lines. */
async function keptAndReal() {
  const lines = (rows: { k: string; n: string }[]) => rows.map((r) => `${r.k}=${r.n}`).sort();
  return {
    kept: {
      records: lines(
        await sql(`SELECT concat_ws('|', status, category, reason) AS k, sum(n)::text AS n FROM review_record_counts
                    GROUP BY status, category, reason HAVING sum(n) <> 0`),
      ),
      replays: lines(
        await sql(`SELECT state::text AS k, sum(n)::text AS n FROM replay_counts GROUP BY 1 HAVING sum(n) <> 0`),
      ),
      pending: lines(
        await sql(`SELECT operation_id::text AS k, sum(n)::text AS n FROM operation_pending_counts
                    GROUP BY 1 HAVING sum(n) <> 0`),
      ),
    },
    real: {
      records: lines(
        await sql(`SELECT concat_ws('|', status, category, reason) AS k, count(*)::text AS n FROM review_records
                    GROUP BY status, category, reason`),
      ),
      replays: lines(await sql(`SELECT state::text AS k, count(*)::text AS n FROM replays GROUP BY 1`)),
      pending: lines(
        await sql(`SELECT operation_id::text AS k, count(*)::text AS n FROM bulk_operation_items
                    WHERE state = 'pending' GROUP BY 1`),
      ),
    },
  };
}

async function expectCountsExact() {
  const { kept, real } = await keptAndReal();
  expect(kept).toEqual(real);
  // And what the scrape shows is the same: open records by category and reason, replays by state.
  const scraped = await samples();
  const active = await sql<{ category: string; reason: string; n: number }>(
    `SELECT category::text, reason, count(*)::int AS n FROM review_records
      WHERE status IN ('open', 'replay-scheduled', 'replaying') GROUP BY 1, 2`,
  );
  for (const row of active) {
    expect(scraped.get(`review_console_open_records{category="${row.category}",reason="${row.reason}"}`)).toBe(row.n);
  }
  const openSeries = [...scraped.keys()].filter((k) => k.startsWith("review_console_open_records{"));
  expect(openSeries).toHaveLength(active.length);
  for (const row of await sql<{ state: string; n: number }>(
    `SELECT state::text, count(*)::int AS n FROM replays GROUP BY 1`,
  )) {
    expect(scraped.get(`review_console_replays{state="${row.state}"}`)).toBe(row.n);
  }
}

/** Creates a replay operation over `reason`'s open records, confirms it, dispatches `n` of them. */
async function runningOperation(reason: string, dispatch: number): Promise<string> {
  const id = await createOperation(
    { action: "replay", reason: "metrics", ratePerSecond: 1000, selection: { type: "filter", filter: { reason } } },
    owner,
  );
  await dryRunOperation(id, owner);
  const op = await getOperation(id, "owner");
  await confirmOperation(id, { expectedVersion: op!.version, dryRunAt: op!.dryRun!.at, checkDone: true }, owner);
  for (;;) {
    const [{ dispatched }] = await sql(`SELECT dispatched FROM bulk_operations WHERE id = $1`, [id]);
    if (dispatched >= dispatch) return id;
    const step = await dispatchStep(id, dispatch - dispatched);
    if (step.type === "wait") await new Promise((r) => setTimeout(r, step.ms));
    if (step.type === "idle") throw new Error(`the operation stopped at ${dispatched}`);
  }
}

describe("GET /api/metrics", () => {
  it("serves Prometheus text to any token: open records by category and reason, oldest age, replays", async () => {
    const consumer = await tokenFor("consumer");
    for (const [category, reason] of [
      ["sequence-gap", "sequence-gap"],
      ["sequence-gap", "sequence-gap"],
      ["manual-review", "invalid-payload"],
    ]) {
      const created = await call(report, {
        token: consumer,
        body: { category, reason, requiredCheck: "look", attempts: 1, message: { id: `m-${Math.random()}` } },
      });
      expect(created.status).toBe(201);
    }
    await sql(`UPDATE review_records SET first_seen_at = now() - interval '2 hours'
                WHERE id = (SELECT id FROM review_records ORDER BY seq LIMIT 1)`);
    const result = await scrape(await tokenFor("auditor"));
    expect(result.status).toBe(200);
    expect(result.type).toMatch(/^text\/plain/);
    expect(result.text).toContain('review_console_open_records{category="sequence-gap",reason="sequence-gap"} 2');
    expect(result.text).toContain('review_console_open_records{category="manual-review",reason="invalid-payload"} 1');
    const age = Number(/^review_console_oldest_open_age_seconds (\S+)$/m.exec(result.text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(7200);
    expect(age).toBeLessThan(7300);
    // Every state is present, at 0 when empty: an alert on it never sees the series vanish.
    expect(result.text).toContain('review_console_replays{state="duplicate-suppressed"} 0');
    expect(result.text).toContain('review_console_operations{state="aborted"} 0');
    expect(result.text).toContain("review_console_operations_auto_paused 0");
    // The old gauge is gone (promtool rejects a gauge named _total); the counter replaced it.
    expect(result.text).not.toContain("review_console_actions_total");
    expect(result.text).toMatch(/^review_console_decisions_total\{action="review.reported"\} [3-9]/m);
    expect((await scrape(consumer)).status).toBe(200);
  });

  it("oldest age is 0 with no open record, and its lookup has an index of its own", async () => {
    await sql(`UPDATE review_records SET status = 'cancelled' WHERE status = 'open'`);
    expect((await samples()).get("review_console_oldest_open_age_seconds")).toBe(0);
    const plan = await withClient(database.current.url, async (c) => {
      // The tables here are tiny, so the planner would rightly scan them: only ask which index serves.
      await c.query("SET enable_seqscan = off");
      await c.query("SET enable_bitmapscan = off");
      const { rows } = await c.query(
        `EXPLAIN (FORMAT JSON) SELECT min(first_seen_at) FROM review_records WHERE status = 'open'`,
      );
      return JSON.stringify(rows[0]);
    });
    expect(plan).toContain("review_records_open_first_seen_at");
    expect(plan).not.toContain('"Sort"');
  });

  it("keeps counts equal to a real GROUP BY through intake, actions, replays and an operation", async () => {
    const consumer = await tokenFor("consumer");
    const ownerToken = await tokenFor("owner");
    const tag = Math.random().toString(36).slice(2, 8);
    const kind = `metrics.${tag}`;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await call(report, {
        token: consumer,
        body: {
          category: i % 2 ? "effect-result-unknown" : "manual-review",
          reason: `counts-${tag}-${i % 3}`,
          requiredCheck: "look",
          attempts: 1,
          message: { id: `counts-${tag}-${i}`, kind, effectKey: `e-${tag}-${i}`, payload: {} },
        },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    // Reported again with another reason: an update that moves the record to another group.
    const again = await call(report, {
      token: consumer,
      body: {
        category: "manual-review",
        reason: `counts-${tag}-moved`,
        requiredCheck: "look",
        attempts: 2,
        message: { id: `counts-${tag}-0` },
      },
    });
    expect(again.body.id).toBe(ids[0]);
    await expectCountsExact();

    const action = (id: string, body: Record<string, unknown>) =>
      call(act, { token: ownerToken, params: { id }, body: { expectedVersion: 1, reason: "metrics", ...body } });
    expect((await action(ids[2]!, { action: "cancel", checkDone: true })).status).toBe(200);
    expect((await action(ids[4]!, { action: "note" })).status).toBe(200);
    expect((await action(ids[4]!, { action: "replay", expectedVersion: 2, checkDone: true })).status).toBe(200);
    expect((await action(ids[3]!, { action: "confirm-not-applied", checkDone: true })).status).toBe(200);
    await expectCountsExact();

    // Both replays (the replay and the confirm-not-applied): one applied, one failed.
    const claimed = await call(claim, { token: consumer, body: { consumer: "w", kinds: [kind], limit: 10 } });
    expect(claimed.body.items).toHaveLength(2);
    await expectCountsExact();
    for (const [i, result] of (["applied", "failed"] as const).entries()) {
      const done = await call(outcome, {
        token: consumer,
        params: { replayId: claimed.body.items[i].replayId },
        body: { outcome: result },
      });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      await expectCountsExact();
    }

    // An operation: frozen items pending, some dispatched, then aborted (the rest not dispatched).
    const reason = `op-${tag}`;
    await intakeReports(
      Array.from({ length: 5 }, () => ({ input: input("manual-review", reason) })),
      consumerActor,
    );
    const id = await runningOperation(reason, 2);
    await expectCountsExact();
    expect((await samples()).get('review_console_operation_records_pending{state="running"}')).toBe(3);
    await abortOperation(id, "metrics", owner);
    await expectCountsExact();
    expect((await samples()).get('review_console_operation_records_pending{state="running"}')).toBe(0);

    // Folding the deltas changes no count, and leaves one row per non-zero group.
    const [{ folded }] = await sql(`SELECT metric_counts_compact() AS folded`);
    expect(folded).toBe(true);
    await expectCountsExact();
    const [{ rows, groups }] = await sql(
      `SELECT count(*)::int AS rows, count(DISTINCT (status, category, reason))::int AS groups FROM review_record_counts`,
    );
    expect(rows).toBe(groups);
  });

  it("counts exactly under concurrent intake from several connections, without a deadlock", async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const groups = [
      ["manual-review", `c-${tag}-a`],
      ["sequence-gap", `c-${tag}-b`],
      ["effect-result-unknown", `c-${tag}-c`],
      ["manual-review", `c-${tag}-d`],
    ] as const;
    const [{ before }] = await sql(`SELECT last_value::int AS before FROM review_record_counts_id_seq`);
    // Eight writers (the app's pool and four connections of their own) at once, each statement
    // touching every group in an order of its own: counter rows updated in place would queue
    // here, and two statements taking them in opposite orders would deadlock.
    const viaApp = Array.from({ length: 4 }, async (_, w) => {
      for (let round = 0; round < 40; round++) {
        const batch = Array.from({ length: 8 }, (_, i) => {
          const [category, reason] = groups[(i + w + round) % groups.length]!;
          return { input: input(category, reason, `c-${tag}-${w}-${round}-${i}`) };
        });
        await intakeReports(batch, consumerActor);
      }
    });
    const viaSql = Array.from({ length: 4 }, (_, w) =>
      withClient(database.current.url, async (c: pg.Client) => {
        for (let round = 0; round < 40; round++) {
          await c.query("BEGIN");
          const order = w % 2 ? [...groups].reverse() : groups;
          for (const [category, reason] of order) {
            await c.query(
              `INSERT INTO review_records (category, reason, required_check, message, message_key)
               VALUES ($1, $2, 'look', '{}', $3)`,
              [category, reason, `sql-${tag}-${w}-${round}-${reason}`],
            );
          }
          // And a status change on records other writers are adding to the same groups.
          await c.query(
            `UPDATE review_records SET status = 'cancelled'
              WHERE message_key = $1`,
            [`sql-${tag}-${w}-${round}-${order[0]![1]}`],
          );
          await c.query("COMMIT");
        }
      }),
    );
    await Promise.all([...viaApp, ...viaSql]);
    await expectCountsExact();
    const [{ after, rows }] = await sql(
      `SELECT (SELECT last_value::int FROM review_record_counts_id_seq) AS after,
              (SELECT count(*)::int FROM review_record_counts) AS rows`,
    );
    // More than 1,000 delta rows were appended, so the triggers folded them on the way.
    expect(after - before).toBeGreaterThan(1000);
    expect(rows).toBeLessThan(after - before);
  }, 120_000);

  it("counts the decisions this process appended, exactly, and only once committed", async () => {
    const [{ start }] = await sql(`SELECT COALESCE(max(seq), 0)::int AS start FROM decision_log`);
    const before = await decisionCounts();
    const ownerToken = await tokenFor("owner");
    const reason = `decided-${Math.random().toString(36).slice(2, 8)}`;
    const [first] = await intakeReports(
      Array.from({ length: 4 }, () => ({ input: input("manual-review", reason) })),
      consumerActor,
    );
    // Reported again: the single-statement intake (no transaction of its own).
    const [{ message_id }] = await sql(`SELECT message_id FROM review_records WHERE id = $1`, [first!.id]);
    await intakeReports([{ input: input("manual-review", reason, message_id) }], consumerActor);
    // A refused action appends nothing.
    const stale = await call(act, {
      token: ownerToken,
      params: { id: first!.id },
      body: { action: "note", expectedVersion: 1, reason: "stale" },
    });
    expect(stale.status).toBe(409);
    // An operation: created (one entry per frozen record, in SQL), dispatched in a batch, aborted
    // (one entry per withdrawn replay, in SQL).
    const id = await runningOperation(reason, 2);
    await abortOperation(id, "metrics", owner);

    // Not counted before the commit, nor at all after a rollback.
    let inside: number | undefined;
    const rolledBack = db().$transaction(async (tx) => {
      await appendDecision(tx, { actor: "system:metrics-test", action: "test.rolled-back" });
      throw new Error("rolled back on purpose");
    });
    await expect(rolledBack).rejects.toThrow("rolled back on purpose");
    await db().$transaction(async (tx) => {
      await appendDecision(tx, { actor: "system:metrics-test", action: "test.committed" });
      inside = (await decisionCounts()).get("test.committed") ?? 0;
    });
    expect(inside).toBe(0);

    const after = await decisionCounts();
    const logged = await sql<{ action: string; n: number }>(
      `SELECT action, count(*)::int AS n FROM decision_log WHERE seq > $1 GROUP BY 1 ORDER BY 1`,
      [start],
    );
    const counted = [...after]
      .map(([action, n]) => ({ action, n: n - (before.get(action) ?? 0) }))
      .filter((c) => c.n !== 0)
      .sort((a, b) => (a.action < b.action ? -1 : 1));
    expect(counted).toEqual(logged);
    expect(logged.map((l) => l.action)).toEqual(
      expect.arrayContaining([
        "operation.record-selected",
        "review.replay",
        "review.replay-withdrawn",
        "review.reported-again",
        "test.committed",
      ]),
    );
    expect(after.get("test.rolled-back")).toBeUndefined();
  });

  it("times answers by route pattern, method and status, never by raw path", async () => {
    const ownerToken = await tokenFor("owner");
    const [created] = await intakeReports([{ input: input("manual-review", "histogram") }], consumerActor);
    const read = await call(detail, {
      token: ownerToken,
      path: `/api/v1/reviews/${created!.id}`,
      params: { id: created!.id },
    });
    expect(read.status).toBe(200);
    const missing = "00000000-0000-4000-8000-000000000000";
    expect(
      (await call(detail, { token: ownerToken, path: `/api/v1/reviews/${missing}`, params: { id: missing } })).status,
    ).toBe(404);
    const { text } = await scrape(ownerToken);
    expect(text).toMatch(
      /^review_console_http_request_duration_seconds_count\{route="\/api\/v1\/reviews\/\[id\]",method="GET",status="200"\} [1-9]/m,
    );
    expect(text).toMatch(
      /^review_console_http_request_duration_seconds_bucket\{le="0.005",route="\/api\/v1\/reviews\/\[id\]",method="GET",status="404"\} \d/m,
    );
    expect(text).toContain(
      'review_console_http_request_duration_seconds_count{route="/api/metrics",method="GET",status="200"}',
    );
    expect(text).not.toContain(created!.id);
    expect(text).not.toContain(missing);
  });

  it("counts bulk operations by state, the auto-paused ones, and the records they have not dispatched yet", async () => {
    const reason = `metrics-${Math.random()}`;
    await intakeReports(
      Array.from({ length: 3 }, () => ({ input: input("manual-review", reason) })),
      consumerActor,
    );
    const id = await createOperation(
      { action: "note", reason: "metrics", selection: { type: "filter", filter: { reason } } },
      owner,
    );
    expect((await samples()).get('review_console_operations{state="planned"}')).toBe(1);
    await dryRunOperation(id, owner);
    const op = await getOperation(id, "owner");
    await confirmOperation(id, { expectedVersion: op!.version, dryRunAt: op!.dryRun!.at, checkDone: true }, owner);
    let scraped = await samples();
    expect(scraped.get('review_console_operations{state="running"}')).toBe(1);
    expect(scraped.get('review_console_operation_records_pending{state="running"}')).toBe(3);
    // Paused by auto-pause (its reason as items-state.ts writes it) versus by a person.
    await sql(
      `UPDATE bulk_operations SET state = 'paused', pause_reason = 'auto-pause: 5 of 20 replays' WHERE id = $1`,
      [id],
    );
    scraped = await samples();
    expect(scraped.get("review_console_operations_auto_paused")).toBe(1);
    expect(scraped.get('review_console_operation_records_pending{state="paused"}')).toBe(3);
    await sql(`UPDATE bulk_operations SET pause_reason = 'paused by user:x: looking' WHERE id = $1`, [id]);
    expect((await samples()).get("review_console_operations_auto_paused")).toBe(0);
  });

  it("refuses a request without a token", async () => {
    expect((await scrape()).status).toBe(401);
  });
});
