/**
 * The decision log's chain trusts nothing a database session can set: a role that may
 * only INSERT and SELECT cannot steer the numbering, the links or the times by a session setting,
 * explicit column values or temporary tables of the same names, and cannot change the log any
 * other way. `verifyDecisionLog` recomputes every hash in Node, not with the database's
 * function, so the Node copy must agree with decision_log_entry_hash() on any value.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { entryHash, verifyDecisionLog, VERIFY_BATCH } from "@/lib/audit";
import { createTestDatabase, dropTestDatabase, setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const GENESIS = "0".repeat(64);

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

interface Link {
  seq: number;
  prev_hash: string;
  hash: string;
  actor: string;
}

async function chain(url = database.current.url): Promise<Link[]> {
  return withClient(
    url,
    async (c) =>
      (await c.query<Link>(`SELECT seq::int AS seq, prev_hash, hash, actor FROM decision_log ORDER BY seq`)).rows,
  );
}

/** Every entry numbered 1..n, each linked to the one before, the head on the last; verify agrees. */
async function expectIntactChain(url = database.current.url): Promise<Link[]> {
  const links = await chain(url);
  expect(
    links.map((l) => l.seq),
    "seq 1..n without gaps",
  ).toEqual(links.map((_, i) => i + 1));
  links.forEach((link, i) => expect(link.prev_hash, `prev_hash of ${link.seq}`).toBe(links[i - 1]?.hash ?? GENESIS));
  const { rows } = await withClient(url, (c) =>
    c.query(`SELECT last_seq::int AS last_seq, last_hash FROM decision_log_head`),
  );
  expect(rows[0]).toEqual({ last_seq: links.length, last_hash: links.at(-1)?.hash ?? GENESIS });
  expect(await verifyDecisionLog(url)).toEqual({ ok: true, entries: links.length });
  return links;
}

describe("the Node hash equals decision_log_entry_hash() in the database", () => {
  // [label, at (as PostgreSQL reads it), actor, actor_role, action, review_id, effect_key, reason, details]
  const cases: [
    string,
    string,
    string,
    string | null,
    string,
    string | null,
    string | null,
    string | null,
    string | null,
  ][] = [
    ["plain", "2026-12-01T09:00:00.123456Z", "owner@example.test", "owner", "review.cancel", null, "k", "r", null],
    ["quotes", "2026-12-01T09:00:00Z", "o'brien", "own''er", "it's", null, "'", "''", `{"q": "it's"}`],
    ["backslashes", "2026-12-01T09:00:00.000001Z", "a\\b", "\\", "x\\'y", null, "\\\\", "E'x'", `{"b": "\\\\"}`],
    ["NULL vs '' vs 'NULL'", "2026-12-01T09:00:00.999999Z", "NULL", null, "", null, "", "NULL", "null"],
    ["unicode", "2026-12-01T23:59:59.5Z", "żółw 🐢", "Ωmega", "e\u0301", null, "日本語", "\u200b|pipe|", `{"ü": "🐢"}`],
    ["control characters", "2026-12-01T09:00:00Z", "tab\there", "new\nline", "cr\r", null, "\u0001", "\u007f", null],
    [
      "jsonb canonical text",
      "2026-12-01T10:00:00+02:00",
      "owner",
      null,
      "review.note",
      "7D1C1A52-3B1E-4C55-9A43-1C1F2C3D4E5F",
      null,
      null,
      `{"z": 1.50, "a": [1e3, -0.0, 12345678901234567890.123], "aa": {"k": "\\u00e9\\"\\\\"}, "a": "dup", "t": true, "n": null}`,
    ],
    ["jsonb string", "1969-12-31T23:59:59.5Z", "o", null, "a", null, null, null, `"\\u00e9 \\"text\\" \\\\ back"`],
    ["year 1", "0001-01-01T00:00:00Z", "o", null, "a", null, null, null, "[]"],
    ["year 10000", "10000-01-01T00:00:00.000001Z", "o", null, "a", null, null, null, "{}"],
    ["long text", "2026-12-01T09:00:00Z", "x".repeat(10_000), null, "a", null, null, "'\\".repeat(500), null],
  ];

  it.each(cases)("%s", async (_label, at, actor, actorRole, action, reviewId, effectKey, reason, details) => {
    const prevHash = randomBytes(32).toString("hex");
    const seq = "9007199254740993"; // beyond 2^53: seq travels as text, never as a JS number
    const [row] = await sql<{ hash: string; epoch: string; review_id: string | null; details: string | null }>(
      `SELECT decision_log_entry_hash($1, $2::bigint, $3::timestamptz, $4, $5, $6, $7::uuid, $8, $9, $10::jsonb) AS hash,
              extract(epoch FROM $3::timestamptz)::text AS epoch, $7::uuid::text AS review_id,
              $10::jsonb::text AS details`,
      [prevHash, seq, at, actor, actorRole, action, reviewId, effectKey, reason, details],
    );
    expect(
      entryHash({
        prevHash,
        seq,
        atEpoch: row!.epoch,
        actor,
        actorRole,
        action,
        reviewId: row!.review_id,
        effectKey,
        reason,
        details: row!.details,
      }),
    ).toBe(row!.hash);
  });

  it("whatever the session's TimeZone and DateStyle: the chain written under them verifies", async () => {
    await withClient(database.current.url, async (c) => {
      await c.query(`SET TimeZone = 'America/St_Johns'`);
      await c.query(`SET DateStyle = 'SQL, DMY'`);
      await c.query(
        `INSERT INTO decision_log (actor, action, reason, details)
         VALUES ('tz@example.test', 'review.note', 'it''s \\ odd', '{"k": "v\\\\"}')`,
      );
    });
    await expectIntactChain();
  });

  it(`walks the log in keyset batches of ${VERIFY_BATCH} and finds a break beyond the first`, async () => {
    const [{ before }] = await sql(`SELECT coalesce(max(seq), 0)::int AS before FROM decision_log`);
    const n = VERIFY_BATCH * 2 + 1;
    await sql(
      `INSERT INTO decision_log (actor, action, reason, details)
       SELECT 'batch@example.test', 'review.reported', 'entry ' || i, jsonb_build_object('i', i)
         FROM generate_series(1, $1::int) i`,
      [n],
    );
    const links = await expectIntactChain();
    expect(links.length).toBe(before + n);
    // `at` grows strictly with seq, even within one statement.
    const [{ monotonic }] = await sql(
      `SELECT bool_and(at > previous) AS monotonic
         FROM (SELECT at, lag(at) OVER (ORDER BY seq) AS previous FROM decision_log) t WHERE previous IS NOT NULL`,
    );
    expect(monotonic).toBe(true);

    const target = before + VERIFY_BATCH + 7;
    await withClient(database.current.url, async (c) => {
      await c.query("BEGIN");
      await c.query(`ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only`);
      await c.query(`UPDATE decision_log SET reason = 'nothing to see' WHERE seq = $1`, [target]);
      await c.query(`ALTER TABLE decision_log ENABLE TRIGGER decision_log_append_only`);
      const verdict = await verifyDecisionLog(database.current.url); // another session: still intact
      expect(verdict.ok, "verify reads committed data only").toBe(true);
      await c.query("COMMIT");
    });
    expect(await verifyDecisionLog(database.current.url)).toEqual({
      ok: false,
      entries: before + n,
      brokenSeq: String(target),
      problem: "its content does not match its hash",
    });
  });
});

describe("a role with only INSERT and SELECT on the log", () => {
  // Its own database: the case above leaves a broken chain behind.
  const role = `rc_ins_${randomBytes(6).toString("hex")}`;
  let roleDatabase: { url: string; name: string };
  let roleUrl: string;

  const admin = <T = any>(text: string, params: unknown[] = []) =>
    withClient(roleDatabase.url, async (c) => (await c.query(text, params)).rows as T[]);

  beforeAll(async () => {
    roleDatabase = await createTestDatabase();
    // What `review-console db roles` grants the runtime role on the log, and nothing more.
    // A password: the embedded server checks it (a trust-auth server ignores it).
    const password = randomBytes(18).toString("base64url");
    await withClient(inject("pgServerUrl"), (c) => c.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`));
    await admin(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await admin(`GRANT INSERT, SELECT ON decision_log TO ${role}`);
    // `at`'s default takes the head lock; PUBLIC may not call it (migration 20261202050000).
    await admin(`GRANT EXECUTE ON FUNCTION decision_log_next_at() TO ${role}`);
    await admin(`GRANT SELECT ON decision_log_head TO ${role}`);
    const url = new URL(roleDatabase.url);
    url.username = role;
    url.password = password;
    roleUrl = url.toString();
    await admin(
      `INSERT INTO decision_log (actor, action) SELECT 'seed@example.test', 'review.note' FROM generate_series(1, 3)`,
    );
  });

  afterAll(async () => {
    // Roles are cluster-wide: drop what it was granted here, then the role itself.
    await admin(`DROP OWNED BY ${role}`).catch(() => {});
    await dropTestDatabase(roleDatabase);
    await withClient(inject("pgServerUrl"), (c) => c.query(`DROP ROLE IF EXISTS ${role}`));
  });

  async function asRole<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: roleUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  it("connects as itself, not as a superuser", async () => {
    const [who] = await asRole(
      async (c) =>
        (await c.query(`SELECT current_user AS name, usesuper FROM pg_user WHERE usename = current_user`)).rows,
    );
    expect(who).toEqual({ name: role, usesuper: false });
  });

  it("cannot forge seq or prev_hash through review_console.log_head, explicit values or temporary tables", async () => {
    const before = await chain(roleDatabase.url);
    const forgedHead = `99|${"f".repeat(64)}`;
    await asRole(async (c) => {
      // The old trigger carried the head in this setting; a session-level SET outlived statements.
      await c.query(`SET review_console.log_head = '${forgedHead}'`);
      await c.query(`INSERT INTO decision_log (actor, action) VALUES ('forger-1', 'review.note')`);
      await c.query("BEGIN");
      await c.query(`SELECT set_config('review_console.log_head', $1, true)`, [forgedHead]);
      await c.query(
        `INSERT INTO decision_log (actor, action) SELECT 'forger-2', 'review.note' FROM generate_series(1, 3)`,
      );
      await c.query("COMMIT");
      // Every column the trigger owns, given explicitly.
      await c.query(
        `INSERT INTO decision_log (seq, at, actor, action, prev_hash, hash)
         VALUES (1000, date_trunc('month', now(), 'UTC'), 'forger-3', 'review.note', $1, $1)`,
        ["e".repeat(64)],
      );
      // Temporary tables are searched before public for unqualified names: the chain's
      // SECURITY DEFINER functions must not read these.
      await c.query(`CREATE TEMP TABLE decision_log (seq bigint, hash text, at timestamptz)`);
      await c.query(`INSERT INTO decision_log VALUES (5000, $1, '2999-01-01T00:00:00Z')`, ["d".repeat(64)]);
      await c.query(`CREATE TEMP TABLE decision_log_head (id int, last_seq bigint, last_hash text)`);
      await c.query(`INSERT INTO decision_log_head VALUES (1, 6000, $1)`, ["c".repeat(64)]);
      await c.query(`INSERT INTO public.decision_log (actor, action) VALUES ('forger-4', 'review.note')`);
    });

    const links = await expectIntactChain(roleDatabase.url);
    expect(links.length).toBe(before.length + 6);
    expect(links.slice(before.length).map((l) => l.actor)).toEqual([
      "forger-1",
      "forger-2",
      "forger-2",
      "forger-2",
      "forger-3",
      "forger-4",
    ]);
    const [{ recent }] = await admin(
      `SELECT bool_and(at > now() - interval '1 hour' AND at < now() + interval '1 minute') AS recent
         FROM decision_log WHERE actor LIKE 'forger-%'`,
    );
    expect(recent, "the caller's timestamps were ignored").toBe(true);
  });

  it.each([
    ["UPDATE the log", `UPDATE decision_log SET reason = 'rewritten' WHERE seq = 1`, /permission denied/],
    ["DELETE from the log", `DELETE FROM decision_log WHERE seq = 1`, /permission denied/],
    ["TRUNCATE the log", `TRUNCATE decision_log`, /permission denied/],
    ["ALTER TABLE the log", `ALTER TABLE decision_log ADD COLUMN scratch text`, /must be owner/],
    ["DISABLE TRIGGER on the log", `ALTER TABLE decision_log DISABLE TRIGGER USER`, /must be owner/],
    ["UPDATE the head", `UPDATE decision_log_head SET last_seq = 1, last_hash = repeat('0', 64)`, /permission denied/],
    ["lock the head", `SELECT 1 FROM decision_log_head FOR UPDATE`, /permission denied/],
    [
      "replace the chain's function",
      `CREATE OR REPLACE FUNCTION public.decision_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
      /must be owner|permission denied/,
    ],
  ])("cannot %s", async (_label, statement, message) => {
    const before = await chain(roleDatabase.url);
    const error = await asRole(async (c) => {
      try {
        await c.query(statement);
      } catch (e) {
        return e as { code?: string; message: string };
      }
      throw new Error(`expected a refusal: ${statement}`);
    });
    expect(error.code, error.message).toBe("42501");
    expect(error.message).toMatch(message);
    expect(await chain(roleDatabase.url)).toEqual(before);
    expect((await verifyDecisionLog(roleDatabase.url)).ok).toBe(true);
  });
});

describe("the chain's cost and its way to the last entry", () => {
  let own: { url: string; name: string };
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await dropTestDatabase(own);
  });

  const run = <T = any>(text: string, params: unknown[] = []) =>
    withClient(own.url, async (c) => (await c.query(text, params)).rows as T[]);

  /** Shared buffers touched per appended row by one multi-row INSERT, triggers included. */
  async function buffersPerRow(n: number, c?: pg.Client): Promise<number> {
    const query = `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON)
      INSERT INTO decision_log (actor, action, reason) SELECT 'cost@example.test', 'review.note', 'r ' || i
        FROM generate_series(1, ${n}) i`;
    const rows = c ? (await c.query(query)).rows : await run(query);
    const plan = rows[0]["QUERY PLAN"][0].Plan;
    return (plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]) / n;
  }

  const N = 20_000;

  it("stays linear when the log was vacuumed while tiny (the trigger's plans are made once per session)", async () => {
    await run(`INSERT INTO decision_log (actor, action) SELECT 'seed', 'review.note' FROM generate_series(1, 3)`);
    await run(`VACUUM ANALYZE decision_log`);
    // One session: its first append plans the trigger's queries against a 3-row table. A
    // sequential scan per row would touch hundreds of blocks per row by the end.
    const perRow = await withClient(own.url, (c) => buffersPerRow(N, c));
    expect(perRow).toBeLessThan(40);
    await expectIntactChain(own.url);
  });

  it("stays linear after a large append was rolled back (its dead entries do not slow the next)", async () => {
    const clean = await buffersPerRow(N);
    await withClient(own.url, async (c) => {
      await c.query("BEGIN");
      await c.query(
        `INSERT INTO decision_log (actor, action) SELECT 'gone', 'review.note' FROM generate_series(1, ${N})`,
      );
      await c.query("ROLLBACK");
    });
    // Walking back over 20,000 dead primary-key entries for every row would double this at least.
    expect(await buffersPerRow(N)).toBeLessThan(clean * 1.5);
    await expectIntactChain(own.url);
  });

  it("finds the last entry even when an older entry has a later time (written by hand or before this chain)", async () => {
    await withClient(own.url, async (c) => {
      await c.query("BEGIN");
      await c.query(`ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only`);
      // Later, but within this month's partition: an `at` in another month moves the row to that
      // partition (an INSERT there), which the chain trigger refuses.
      await c.query(
        `UPDATE decision_log SET at = (SELECT max(at) FROM decision_log) + interval '1 second' WHERE seq = 2`,
      );
      await c.query(`ALTER TABLE decision_log ENABLE TRIGGER decision_log_append_only`);
      await c.query("COMMIT");
    });
    await run(`INSERT INTO decision_log (actor, action) VALUES ('after-edit-1', 'review.note')`);
    await run(
      `INSERT INTO decision_log (actor, action) SELECT 'after-edit-2', 'review.note' FROM generate_series(1, 3)`,
    );
    // Numbering and links stay right; only the hand-edited entry fails its own hash.
    const links = await chain(own.url);
    expect(links.map((l) => l.seq)).toEqual(links.map((_, i) => i + 1));
    links.forEach((link, i) => expect(link.prev_hash).toBe(links[i - 1]?.hash ?? GENESIS));
    expect(links.slice(-4).map((l) => l.actor)).toEqual([
      "after-edit-1",
      "after-edit-2",
      "after-edit-2",
      "after-edit-2",
    ]);
    expect(await verifyDecisionLog(own.url)).toMatchObject({ ok: false, brokenSeq: "2" });
  });
});
