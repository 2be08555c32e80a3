import { beforeAll, describe, expect, it } from "vitest";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as overviewRoute } from "@/app/api/v1/overview/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// GET /api/v1/overview: every figure against the records this file inserted (unique kinds and
// reasons per test), and the window totals against a count over the records themselves, so the
// arrival counts kept by the triggers (migration 20261201080000_arrival_counts) must agree with
// the table after inserts, a repeated report that changes the reason, moved first sightings and
// a delete.

const database = setupTestDatabase();

let consumer: string;
let owner: string;
beforeAll(async () => {
  consumer = await tokenFor("consumer");
  owner = await tokenFor("owner");
});

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

interface Series {
  key: string;
  total: number;
  counts: number[];
}

async function sql(text: string, params: unknown[] = []) {
  return withClient(database.current.url, async (c) => (await c.query(text, params)).rows);
}

function reportFor(tag: string, kind: string, reason: string, index: number) {
  return {
    category: "manual-review",
    reason,
    requiredCheck: `check ${tag} ${index}`,
    attempts: 1,
    message: {
      id: `m-${tag}-${index}`,
      kind,
      effectKey: `eff-${tag}-${index}`,
      sequenceKey: `seq-${tag}-${index}`,
      sequence: 1,
      payload: { schema: "2021-03" },
    },
  };
}

async function report(records: ReturnType<typeof reportFor>[]): Promise<string[]> {
  const answer = await call(batch, { token: consumer, path: "/api/v1/reviews/batch", body: { records } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.results.map((r: { id: string }) => r.id);
}

async function overview(window?: string, token = owner) {
  const path = window === undefined ? "/api/v1/overview" : `/api/v1/overview?window=${encodeURIComponent(window)}`;
  return call(overviewRoute, { token, path });
}

async function overviewOk(window?: string) {
  const answer = await overview(window);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

const seriesOf = (list: Series[], key: string) => list.find((s) => s.key === key);

/** The bucket index of an instant: the last bucket that starts at or before it. */
function bucketIndex(buckets: string[], at: Date): number {
  let index = -1;
  buckets.forEach((start, i) => {
    if (Date.parse(start) <= at.getTime()) index = i;
  });
  return index;
}

/** Per bucket, how many of `times` fall in it (the expected counts of one series). */
function expectedCounts(buckets: string[], times: Date[]): number[] {
  const counts = buckets.map(() => 0);
  for (const t of times) {
    const i = bucketIndex(buckets, t);
    if (i >= 0) counts[i]! += 1;
  }
  return counts;
}

describe("arrivals", () => {
  it("counts records per hour (24h) or day (7d, 30d) by kind and reason, exactly", async () => {
    const tag = newTag();
    const kind = `kind-${tag}`;
    const [r1, r2] = [`r1-${tag}`, `r2-${tag}`];
    const ids = await report([0, 1, 2, 3, 4].map((i) => reportFor(tag, kind, i < 3 ? r1 : r2, i)));
    // Move first sightings: 3 hours, 3 days and 20 days back (the counts follow an UPDATE too).
    await sql(
      `UPDATE review_records r SET first_seen_at = now() - v.back::interval
         FROM unnest($1::uuid[], $2::text[]) AS v(id, back) WHERE r.id = v.id`,
      [ids.slice(0, 3), ["3 hours", "3 days", "20 days"]],
    );
    const rows = await sql(`SELECT id::text AS id, reason, first_seen_at FROM review_records WHERE kind = $1`, [kind]);
    const seen = (reason?: string) =>
      rows.filter((row) => reason === undefined || row.reason === reason).map((row) => row.first_seen_at as Date);

    const expectations: [string, "hour" | "day", number, number][] = [
      ["24h", "hour", 24, 3],
      ["7d", "day", 7, 4],
      ["30d", "day", 30, 5],
    ];
    for (const [window, bucket, buckets, total] of expectations) {
      const body = await overviewOk(window);
      expect(body.window).toBe(window);
      expect(body.arrivals.bucket).toBe(bucket);
      expect(body.arrivals.buckets).toHaveLength(buckets);
      const from = new Date(body.from);
      const inWindow = (times: Date[]) => times.filter((t) => t >= from);
      const byKind = seriesOf(body.arrivals.byKind, kind);
      expect(byKind?.total, window).toBe(total);
      expect(byKind?.counts, window).toEqual(expectedCounts(body.arrivals.buckets, inWindow(seen())));
      expect(seriesOf(body.arrivals.byReason, r1)?.counts, window).toEqual(
        expectedCounts(body.arrivals.buckets, inWindow(seen(r1))),
      );
      expect(seriesOf(body.arrivals.byReason, r2)?.total, window).toBe(2);
      // The whole window, every test's records included, against the table itself.
      const [{ n }] = await sql(`SELECT count(*)::int AS n FROM review_records WHERE first_seen_at >= $1`, [from]);
      expect(body.arrivals.total, window).toBe(n);
      const categories = body.arrivals.byCategory.reduce((sum: number, s: Series) => sum + s.total, 0);
      expect(categories, window).toBe(n);
    }
  });

  it("defaults to 24h, follows a repeated report that changes the reason, and a deleted record leaves", async () => {
    const tag = newTag();
    const kind = `kind-${tag}`;
    const [before, after] = [`before-${tag}`, `after-${tag}`];
    const [first] = await report([reportFor(tag, kind, before, 0), reportFor(tag, kind, before, 1)]);
    await report([reportFor(tag, kind, after, 0)]); // the same message again, another reason
    const body = await overviewOk();
    expect(body.window).toBe("24h");
    expect(seriesOf(body.arrivals.byReason, before)?.total).toBe(1);
    expect(seriesOf(body.arrivals.byReason, after)?.total).toBe(1);
    expect(seriesOf(body.arrivals.byKind, kind)?.total).toBe(2);

    await sql(`DELETE FROM review_history WHERE review_id = $1`, [first]);
    await sql(`DELETE FROM review_revisions WHERE review_id = $1`, [first]);
    await sql(`DELETE FROM review_records WHERE id = $1`, [first]);
    const later = await overviewOk("24h");
    expect(seriesOf(later.arrivals.byReason, after)).toBeUndefined();
    expect(seriesOf(later.arrivals.byKind, kind)?.total).toBe(1);
  });
});

describe("arrivals by day (review_arrival_day_counts, migration 20261202070000)", () => {
  /** Per UTC day: the day rows plus the unfolded hourly rows, against all hourly rows. */
  async function daysDisagreeing() {
    return sql(`
      WITH by_day AS (
        SELECT day, category, reason, kind, sum(n) AS n FROM (
          SELECT day, category, reason, kind, n FROM review_arrival_day_counts
          UNION ALL
          SELECT date_trunc('day', hour, 'UTC'), category, reason, kind, n FROM review_arrival_counts WHERE NOT folded
        ) AS d GROUP BY 1, 2, 3, 4
      ), by_hour AS (
        SELECT date_trunc('day', hour, 'UTC') AS day, category, reason, kind, sum(n) AS n
          FROM review_arrival_counts GROUP BY 1, 2, 3, 4
      )
      SELECT * FROM by_day FULL JOIN by_hour USING (day, category, reason, kind)
       WHERE by_day.n IS DISTINCT FROM by_hour.n AND coalesce(by_day.n, 0) + coalesce(by_hour.n, 0) <> 0`);
  }

  it("stays exact across folds: folded days, hours not yet folded, and changes after a fold", async () => {
    const tag = newTag();
    const kind = `kind-${tag}`;
    const ids = await report([0, 1, 2, 3].map((i) => reportFor(tag, kind, `day-${tag}`, i)));
    const [{ folded }] = await sql(`SELECT review_arrival_counts_compact() AS folded`);
    expect(folded).toBe(true);
    // Folded into their day: nothing of this kind is left unfolded in the hourly table.
    const [{ unfolded }] = await sql(
      `SELECT count(*)::int AS unfolded FROM review_arrival_counts WHERE kind = $1 AND NOT folded`,
      [kind],
    );
    expect(unfolded).toBe(0);
    const [{ n: dayRows }] = await sql(`SELECT sum(n)::int AS n FROM review_arrival_day_counts WHERE kind = $1`, [
      kind,
    ]);
    expect(dayRows).toBe(4);

    // Changes after the fold are unfolded hourly deltas until the next one: moved 2 and 10 days back,
    // one deleted. The day windows count them at once.
    await sql(
      `UPDATE review_records r SET first_seen_at = now() - v.back::interval
         FROM unnest($1::uuid[], $2::text[]) AS v(id, back) WHERE r.id = v.id`,
      [ids.slice(0, 2), ["2 days", "10 days"]],
    );
    for (const table of ["review_history", "review_revisions"]) {
      await sql(`DELETE FROM ${table} WHERE review_id = $1`, [ids[3]]);
    }
    await sql(`DELETE FROM review_records WHERE id = $1`, [ids[3]]);
    const check = async () => {
      const rows = await sql(`SELECT first_seen_at FROM review_records WHERE kind = $1`, [kind]);
      for (const [window, total] of [
        ["7d", 2],
        ["30d", 3],
      ] as const) {
        const body = await overviewOk(window);
        const byKind = seriesOf(body.arrivals.byKind, kind);
        expect(byKind?.total, window).toBe(total);
        const from = new Date(body.from);
        const times = rows.map((row) => row.first_seen_at as Date).filter((t) => t >= from);
        expect(byKind?.counts, window).toEqual(expectedCounts(body.arrivals.buckets, times));
        const [{ n }] = await sql(`SELECT count(*)::int AS n FROM review_records WHERE first_seen_at >= $1`, [from]);
        expect(body.arrivals.total, window).toBe(n);
      }
    };
    await check();
    expect(await daysDisagreeing()).toEqual([]);
    await sql(`SELECT review_arrival_counts_compact()`);
    await check();
    expect(await daysDisagreeing()).toEqual([]);
    // Folded again: one folded row per day and group, none left unfolded.
    const [{ open }] = await sql(`SELECT count(*)::int AS open FROM review_arrival_day_counts WHERE NOT folded`);
    expect(open).toBe(0);
  });
});

describe("open records and the oldest", () => {
  it("counts open records by category and names the oldest open one", async () => {
    const tag = newTag();
    const ids = await report([0, 1, 2].map((i) => reportFor(tag, `kind-${tag}`, `old-${tag}`, i)));
    await sql(`UPDATE review_records SET first_seen_at = now() - interval '4000 days' WHERE id = $1`, [ids[1]]);
    await sql(`UPDATE review_records SET status = 'resolved' WHERE id = $1`, [ids[2]]);
    const body = await overviewOk("7d");
    const rows = await sql(
      `SELECT category::text AS category, count(*)::int AS n FROM review_records WHERE status = 'open' GROUP BY 1`,
    );
    const expected = Object.fromEntries(rows.map((row) => [row.category, row.n]));
    for (const [category, n] of Object.entries(body.open.byCategory)) expect(n, category).toBe(expected[category] ?? 0);
    expect(body.open.total).toBe(rows.reduce((sum, row) => sum + row.n, 0));
    expect(body.oldestOpen.id).toBe(ids[1]);
    expect(body.oldestOpen.reason).toBe(`old-${tag}`);
    expect(body.oldestOpen.ageSeconds).toBeGreaterThanOrEqual(4000 * 86_400 - 5);
  });
});

describe("time to resolution", () => {
  it("gives p50 and p95 per cause over the records finished in the window", async () => {
    const tag = newTag();
    const kind = `kind-${tag}`;
    const ids = await report([0, 1, 2, 3].map((i) => reportFor(tag, kind, `done-${tag}`, i)));
    // One statement: finished_at is the transaction's now() (the trigger), so each took exactly
    // its offset. The fourth is cancelled 20 days ago: outside 24h and 7d, inside 30d.
    await sql(
      `UPDATE review_records r SET status = 'resolved', first_seen_at = now() - v.took * interval '1 second'
         FROM unnest($1::uuid[], $2::int[]) AS v(id, took) WHERE r.id = v.id`,
      [ids.slice(0, 3), [100, 200, 300]],
    );
    await sql(
      `UPDATE review_records SET status = 'cancelled', first_seen_at = now() - interval '21 days' WHERE id = $1`,
      [ids[3]],
    );
    await sql(`UPDATE review_records SET finished_at = now() - interval '20 days' WHERE id = $1`, [ids[3]]);
    // A note later moves updated_at, not the finish time.
    await sql(`UPDATE review_records SET updated_at = now() + interval '1 hour', version = version + 1 WHERE id = $1`, [
      ids[0],
    ]);

    const day = await overviewOk("24h");
    const cause = day.resolution.causes.find((c: { kind: string }) => c.kind === kind);
    expect(cause).toEqual({
      kind,
      reason: `done-${tag}`,
      errorClass: null,
      finished: 3,
      p50Seconds: 200,
      p95Seconds: 290,
    });
    expect(day.resolution.sampled).toBe(false);
    expect(day.estimates).toEqual([]);
    const [{ n }] = await sql(
      `SELECT count(*)::int AS n FROM review_records WHERE status IN ('resolved', 'cancelled') AND finished_at >= $1`,
      [new Date(day.from)],
    );
    expect(day.resolution.finished).toBe(n);

    const month = await overviewOk("30d");
    const monthCause = month.resolution.causes.find((c: { kind: string }) => c.kind === kind);
    expect(monthCause.finished).toBe(4);
    expect(monthCause.p50Seconds).toBe(250);
  });
});

describe("operations in flight", () => {
  it("counts live bulk operations as the table holds them", async () => {
    const body = await overviewOk("24h");
    const rows = await sql(
      `SELECT count(*)::int AS n FROM bulk_operations WHERE state IN ('planned', 'running', 'awaiting-continue', 'paused')`,
    );
    expect(body.operations.inFlight).toBe(rows[0].n);
    expect(body.operations.items.length).toBe(Math.min(rows[0].n, 10));
  });
});

describe("refusals", () => {
  it("answers every reading role and refuses the consumer (403) and no token (401)", async () => {
    for (const role of ["support", "auditor", "admin"] as const) {
      expect((await overview("24h", await tokenFor(role))).status, role).toBe(200);
    }
    expect((await overview("24h", consumer)).status).toBe(403);
    expect((await call(overviewRoute, { path: "/api/v1/overview" })).status).toBe(401);
  });

  it("answers a window it does not know with a 400 naming `window`", async () => {
    for (const window of ["1h", "", "30D", "7d "]) {
      const answer = await overview(window);
      expect(answer.status, window).toBe(400);
      expect(
        answer.body.error.issues.map((i: { path: string }) => i.path),
        window,
      ).toContain("window");
    }
  });
});
