import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as auditRoute } from "@/app/api/v1/audit/route";
import { timeWindowAsSeq, verifyDecisionLog } from "@/lib/audit";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The decision log's `at` rises with `seq` however appends interleave, so a time window is a seq
// range (lib/audit/list.ts timeWindowAsSeq, migration 20261201040000): this file checks the
// order under concurrent transactions and that a window's pages hold exactly the window's
// entries, translated or not. About 10 s (30 s on a loaded machine).

const database = setupTestDatabase();

let auditor: string;
beforeAll(async () => {
  auditor = await tokenFor("auditor");
});

async function sql(text: string, params: unknown[] = []) {
  return withClient(database.current.url, async (c) => (await c.query(text, params)).rows);
}

interface Entry {
  seq: number;
  at: string;
}

/** Every entry of a window through the API, following nextCursor with small pages. */
async function windowThroughApi(from: string, to: string, actor: string): Promise<number[]> {
  const seqs: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const params = new URLSearchParams({ from, to, actor, limit: "7" });
    if (cursor) params.set("cursor", cursor);
    const answer = await call(auditRoute, { token: auditor, path: `/api/v1/audit?${params}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    seqs.push(...(answer.body.items as Entry[]).map((e) => e.seq));
    cursor = answer.body.nextCursor;
    if (!cursor) return seqs;
  }
  throw new Error("pagination does not end");
}

/** The oracle: the window by `at`, read from the table, newest first. */
async function windowBySql(from: string, to: string, actor: string): Promise<number[]> {
  const rows = await sql(
    `SELECT seq::int AS seq FROM decision_log
      WHERE actor = $3 AND at >= $1::timestamptz AND at < $2::timestamptz ORDER BY seq DESC`,
    [from, to, actor],
  );
  return rows.map((r) => r.seq as number);
}

/** `at` as the API renders it (microseconds), for bounds that fall exactly on an entry. */
const AT_TEXT = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

describe("the decision log's time order", () => {
  it("gives concurrent appends an `at` that rises with seq, and keeps the chain valid", async () => {
    const actor = `concurrent-${Date.now()}`;
    const writers = 12;
    const rounds = 8;
    const clients = await Promise.all(
      Array.from({ length: writers }, async () => {
        const client = new pg.Client({ connectionString: database.current.url });
        await client.connect();
        return client;
      }),
    );
    try {
      await Promise.all(
        clients.map(async (client, w) => {
          for (let round = 0; round < rounds; round++) {
            await client.query("BEGIN");
            // Some single entries, some multi-row statements, some rolled back: the rolled-back
            // ones leave their seq to the next append, never a gap or a step back in time.
            const rows = 1 + ((w + round) % 4);
            await client.query(
              `INSERT INTO decision_log (actor, action, reason)
               SELECT $1, 'test.concurrent', $2 || '-' || g FROM generate_series(1, $3::int) AS g`,
              [actor, `w${w}r${round}`, rows],
            );
            await client.query((w + round) % 5 === 0 ? "ROLLBACK" : "COMMIT");
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
    const disorder = await sql(
      `SELECT seq::int AS seq FROM (SELECT seq, at, lag(at) OVER (ORDER BY seq) AS previous FROM decision_log) AS l
        WHERE at <= previous`,
    );
    expect(disorder).toEqual([]);
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM decision_log WHERE actor = $1`, [actor]);
    expect(n).toBeGreaterThan(writers * rounds);
    expect(await verifyDecisionLog(database.current.url)).toEqual(expect.objectContaining({ ok: true }));
  });

  it("answers a time window exactly, its bounds on entries and between them, as a seq range", async () => {
    const actor = `window-${Date.now()}`;
    // Interleaved with another actor's entries, so the seq range holds entries the filter drops.
    for (let i = 0; i < 30; i++) {
      await sql(
        `INSERT INTO decision_log (actor, action) VALUES ($1, 'test.window'), ('someone-else', 'test.window')`,
        [actor],
      );
    }
    const entries = (await sql(
      `SELECT seq::int AS seq, ${AT_TEXT} AS at FROM decision_log WHERE actor = $1 ORDER BY seq`,
      [actor],
    )) as Entry[];
    const at = (i: number) => entries[i]!.at;
    // An entry's time cut to the millisecond: a bound that falls between entries, not on one.
    const millis = (i: number) => `${at(i).slice(0, 23)}Z`;
    const windows: [string, string][] = [
      [at(3), at(17)], // inclusive from, exclusive to, both on entries
      [at(0), at(29)],
      [at(10), at(10)], // empty: to = from
      [at(10), at(11)], // exactly one
      ["2000-01-01T00:00:00Z", at(5)], // open below
      [at(25), "2999-01-01T00:00:00Z"], // open above
      ["2999-01-01T00:00:00Z", "2999-01-02T00:00:00Z"], // after everything: empty
      [millis(4), millis(20)],
    ];
    for (const [from, to] of windows) {
      expect(await windowThroughApi(from, to, actor), `${from} .. ${to}`).toEqual(await windowBySql(from, to, actor));
      // The whole ordered log is on the later side of every bound: each is translated to seq.
      const translated = await timeWindowAsSeq({ from, to });
      expect(translated.fromSeq, from).not.toBeUndefined();
      expect(translated.toSeq, to).not.toBeUndefined();
    }
    expect(await windowThroughApi(at(3), at(17), actor)).toHaveLength(14);
  });

  it("answers by `at` where entries written before the time order may be out of it", async () => {
    const actor = `legacy-${Date.now()}`;
    for (let i = 0; i < 6; i++) {
      await sql(`INSERT INTO decision_log (actor, action) VALUES ($1, 'test.legacy')`, [actor]);
    }
    const entries = (await sql(
      `SELECT seq::int AS seq, ${AT_TEXT} AS at FROM decision_log WHERE actor = $1 ORDER BY seq`,
      [actor],
    )) as Entry[];
    // An entry whose `at` lies before its predecessors' (what a clock stepping back could leave
    // before the rule), written with the log's triggers off as only the owner can, and the time
    // order row as the migration computes it for such a log.
    await sql(`ALTER TABLE decision_log DISABLE TRIGGER USER`);
    try {
      await sql(
        `INSERT INTO decision_log (seq, at, actor, action, prev_hash, hash)
         SELECT max(seq) + 1, $2::timestamptz, $1, 'test.legacy', '', '' FROM decision_log`,
        [actor, entries[1]!.at],
      );
    } finally {
      await sql(`ALTER TABLE decision_log ENABLE TRIGGER USER`);
    }
    const [{ until }] = await sql(`SELECT ${AT_TEXT.replace("at AT", "max(at) AT")} AS until FROM decision_log`);
    await sql(`UPDATE decision_log_time_order SET unordered_until = $1::timestamptz`, [until]);
    try {
      const from = entries[1]!.at;
      const to = entries[3]!.at;
      // Both bounds are at or before unordered_until: answered by `at`, and the late entry (a
      // seq range would miss it) is in the window.
      expect(await timeWindowAsSeq({ from, to })).toEqual({});
      const got = await windowThroughApi(from, to, actor);
      expect(got).toEqual(await windowBySql(from, to, actor));
      expect(got).toHaveLength(3);
    } finally {
      await sql(`UPDATE decision_log_time_order SET unordered_until = NULL`);
    }
  });
});
