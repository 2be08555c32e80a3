/**
 * The decision log is the evidence of who decided what: the database itself numbers and chains
 * the entries (trigger `decision_log_chain`), refuses to change or remove them, and
 * `verifyDecisionLog` finds the first entry where someone went around those guards as superuser.
 * Every case gets its own database: tampering cases break the chain on purpose.
 */
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendDecision, type DecisionEntry, verifyDecisionLog } from "@/lib/audit";
import { closeDb, db } from "@/lib/db/client";
import { createTestDatabase, dropTestDatabase, withClient, type TestDatabase } from "../support/database";

const GENESIS = "0".repeat(64);
const REVIEW_ID = "7d1c1a52-3b1e-4c55-9a43-1c1f2c3d4e5f";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  await closeDb(); // db() connects to this case's database on first use
});
afterEach(async () => {
  await closeDb();
  await dropTestDatabase(database);
});

function entry(i: number, overrides: Partial<DecisionEntry> = {}): DecisionEntry {
  return {
    actor: `owner-${i}@example.test`,
    actorRole: "owner",
    action: "review.cancel",
    reviewId: REVIEW_ID,
    effectKey: `invoice-${i}:reminder`,
    reason: `reason ${i}`,
    details: { i, note: "the customer paid by phone" },
    ...overrides,
  };
}

/** Appends entries 1..n one after another, through the app's own path. */
async function appendEntries(n: number): Promise<void> {
  // Entry 3 has no effect key, so tampering can turn NULL into '' (which must count as a change).
  for (let i = 1; i <= n; i++) await appendDecision(db(), entry(i, i === 3 ? { effectKey: null } : {}));
}

interface Link {
  seq: number;
  prev_hash: string;
  hash: string;
}

function sql<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  return withClient(database.url, fn);
}

async function chain(): Promise<Link[]> {
  const { rows } = await sql((c) =>
    c.query<Link>(`SELECT seq::int AS seq, prev_hash, hash FROM decision_log ORDER BY seq`),
  );
  return rows;
}

async function head(): Promise<{ last_seq: number; last_hash: string }> {
  const { rows } = await sql((c) => c.query(`SELECT last_seq::int AS last_seq, last_hash FROM decision_log_head`));
  return rows[0];
}

/** Checks numbering and links of `links` as read from the table, independently of verify.ts. */
function expectIntactChain(links: Link[], n: number) {
  expect(
    links.map((l) => l.seq),
    "seq must be 1..n without gaps",
  ).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  links.forEach((link, i) => {
    expect(link.hash, `hash of entry ${link.seq}`).toMatch(/^[0-9a-f]{64}$/);
    expect(link.prev_hash, `prev_hash of entry ${link.seq}`).toBe(i === 0 ? GENESIS : links[i - 1]!.hash);
  });
  expect(new Set(links.map((l) => l.hash)).size, "hashes must be distinct").toBe(n);
}

/** The error a statement fails with (or a failure of the test when it succeeds). */
async function errorOf(statement: string): Promise<{ code?: string; message: string }> {
  return sql(async (c) => {
    try {
      await c.query(statement);
    } catch (error) {
      return error as { code?: string; message: string };
    }
    throw new Error(`expected the database to refuse: ${statement}`);
  });
}

/**
 * What an attacker with superuser rights can do: switch the append-only trigger off, change
 * the table, switch it on again. In one transaction, so a failing statement never leaves the
 * trigger disabled.
 */
async function behindTheTriggersBack(statement: string): Promise<void> {
  await sql(async (c) => {
    await c.query("BEGIN");
    await c.query(`ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only`);
    // An UPDATE of `at` into another month moves the row to that month's partition, which is an
    // INSERT there: the chaining trigger goes off too, as an attacker would switch it off.
    await c.query(`ALTER TABLE decision_log DISABLE TRIGGER decision_log_chain`);
    const { rowCount } = await c.query(statement);
    expect(rowCount, `tampering statement should touch one row: ${statement}`).toBe(1);
    await c.query(`ALTER TABLE decision_log ENABLE TRIGGER decision_log_chain`);
    await c.query(`ALTER TABLE decision_log ENABLE TRIGGER decision_log_append_only`);
    await c.query("COMMIT");
  });
}

describe("appending to the decision log", () => {
  it("numbers entries 1..n without gaps and chains each to the previous one from 64 zeros", async () => {
    await appendEntries(5);

    const links = await chain();
    expectIntactChain(links, 5);
    expect(await head()).toEqual({ last_seq: 5, last_hash: links[4]!.hash });
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 5 });
    // What was appended is what is stored.
    const { rows } = await sql((c) =>
      c.query(
        `SELECT actor, actor_role, action, review_id, effect_key, reason, details FROM decision_log WHERE seq = 2`,
      ),
    );
    expect(rows[0]).toEqual({
      actor: "owner-2@example.test",
      actor_role: "owner",
      action: "review.cancel",
      review_id: REVIEW_ID,
      effect_key: "invoice-2:reminder",
      reason: "reason 2",
      details: { i: 2, note: "the customer paid by phone" },
    });
  });

  it("ignores a caller's seq, at, prev_hash and hash: the trigger sets them", async () => {
    await appendEntries(1);
    await sql((c) =>
      c.query(`INSERT INTO decision_log (seq, at, actor, action, prev_hash, hash)
               VALUES (99, date_trunc('month', now(), 'UTC'), 'forger', 'review.note', 'forged', 'forged')`),
    );
    // A time in another month would route the row to that month's partition (the log is
    // partitioned by month, docs/decisions/0023): refused, and nothing is appended.
    const refused = await sql((c) =>
      c
        .query(
          `INSERT INTO decision_log (seq, at, actor, action, prev_hash, hash)
           VALUES (99, '2000-01-01T00:00:00Z', 'forger', 'review.note', 'forged', 'forged')`,
        )
        .then(
          () => null,
          (error: { code?: string }) => error.code,
        ),
    );
    expect(refused, "SQLSTATE RC001").toBe("RC001");

    const links = await chain();
    expectIntactChain(links, 2);
    const { rows } = await sql((c) =>
      c.query(`SELECT at > now() - interval '1 hour' AS recent FROM decision_log WHERE seq = 2`),
    );
    expect(rows[0].recent, "the caller's timestamp was kept").toBe(true);
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 2 });
  });

  it("uses no number for an append whose transaction rolls back", async () => {
    // A SEQUENCE would leave a hole here that verify could not tell from a deleted entry.
    await appendEntries(2);
    await sql(async (c) => {
      await c.query("BEGIN");
      await c.query(`INSERT INTO decision_log (actor, action) VALUES ('owner@example.test', 'review.note')`);
      await c.query("ROLLBACK");
    });
    await appendDecision(db(), entry(3));

    expectIntactChain(await chain(), 3);
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 3 });
  });

  it("keeps a valid gapless chain under 50 concurrent appends in separate transactions", async () => {
    const n = 50;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        db().$transaction(
          async (tx) => {
            // Some work before the append, so that transactions overlap instead of running in turn.
            await tx.$executeRaw`SELECT pg_sleep(0.005)`;
            await appendDecision(tx, entry(i + 1));
          },
          { maxWait: 20_000, timeout: 20_000 },
        ),
      ),
    );

    expectIntactChain(await chain(), n);
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: n });
    const { rows } = await sql((c) => c.query(`SELECT (details->>'i')::int AS i FROM decision_log ORDER BY 1`));
    expect(
      rows.map((r) => r.i),
      "every append is there exactly once",
    ).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });

  it("chains every row of a multi-row insert, also across statements of one transaction and a rolled-back savepoint", async () => {
    await appendEntries(1);
    await sql(async (c) => {
      const insert = (from: number, to: number) =>
        c.query(
          `INSERT INTO decision_log (actor, action, reason)
           SELECT 'batch@example.test', 'review.reported', 'entry ' || i FROM generate_series($1::int, $2::int) i`,
          [from, to],
        );
      await c.query("BEGIN");
      await insert(2, 400);
      await c.query("SAVEPOINT s");
      await insert(401, 450);
      await c.query("ROLLBACK TO SAVEPOINT s");
      await insert(451, 500);
      await c.query("COMMIT");
    });
    expectIntactChain(await chain(), 450);
    expect((await head()).last_seq).toBe(450);
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 450 });
    await appendDecision(db(), entry(501));
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 451 });
  });
});

describe("the database refuses to change the decision log", () => {
  it.each([
    ["UPDATE", `UPDATE decision_log SET reason = 'rewritten' WHERE seq = 2`],
    ["DELETE", `DELETE FROM decision_log WHERE seq = 2`],
    ["TRUNCATE", `TRUNCATE decision_log`],
  ])("refuses %s", async (operation, statement) => {
    await appendEntries(3);
    const before = await chain();

    const error = await errorOf(statement);

    expect(error.message).toBe(`decision_log is append-only: ${operation} refused`);
    expect(error.code, "SQLSTATE insufficient_privilege").toBe("42501");
    expect(await chain()).toEqual(before);
  });

  it("refuses the same through the app's Prisma client", async () => {
    await appendEntries(2);
    await expect(db().decisionLog.deleteMany()).rejects.toThrow("decision_log is append-only: DELETE refused");
    await expect(db().decisionLog.updateMany({ where: { seq: 1n }, data: { reason: "rewritten" } })).rejects.toThrow(
      "decision_log is append-only: UPDATE refused",
    );
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 2 });
  });

  it.each([
    ["DELETE", `DELETE FROM decision_log_head`],
    ["TRUNCATE", `TRUNCATE decision_log_head`],
  ])("refuses %s of the chain head", async (operation, statement) => {
    await appendEntries(1);
    const error = await errorOf(statement);
    expect(error.message).toBe(`decision_log is append-only: ${operation} refused`);
    expect((await head()).last_seq).toBe(1);
  });
});

describe("the chain head moves only through appends", () => {
  it.each([
    ["rewinding it", `UPDATE decision_log_head SET last_seq = 1, last_hash = repeat('0', 64)`],
    ["moving it forward by hand", `UPDATE decision_log_head SET last_seq = last_seq + 1`],
  ])("refuses %s", async (_, statement) => {
    await appendEntries(3);
    const error = await errorOf(statement);
    expect(error.message).toBe("decision_log_head moves only through appends to decision_log");
    expect((await head()).last_seq).toBe(3);
    await appendDecision(db(), entry(4));
    expect(await verifyDecisionLog(database.url)).toEqual({ ok: true, entries: 4 });
  });
});

describe("verifyDecisionLog finds tampering done as superuser", () => {
  const CONTENT = "its content does not match its hash";
  const LINK = "its link to the previous entry is broken";
  const HOLE = "entries before it are missing";
  const TAIL = "entries at the end of the log are missing";

  // Five entries; each case damages them in one way. Every hashed column has its own case, so
  // leaving one out of decision_log_entry_hash() fails here.
  it.each([
    ["edited reason", `UPDATE decision_log SET reason = 'nothing to see' WHERE seq = 3`, 5, "3", CONTENT],
    ["edited actor", `UPDATE decision_log SET actor = 'someone-else@example.test' WHERE seq = 3`, 5, "3", CONTENT],
    ["edited actor_role", `UPDATE decision_log SET actor_role = 'admin' WHERE seq = 3`, 5, "3", CONTENT],
    ["edited action", `UPDATE decision_log SET action = 'review.note' WHERE seq = 3`, 5, "3", CONTENT],
    ["edited review_id", `UPDATE decision_log SET review_id = gen_random_uuid() WHERE seq = 3`, 5, "3", CONTENT],
    ["NULL effect_key made ''", `UPDATE decision_log SET effect_key = '' WHERE seq = 3`, 5, "3", CONTENT],
    ["edited details", `UPDATE decision_log SET details = '{"i": 3}' WHERE seq = 3`, 5, "3", CONTENT],
    ["edited timestamp", `UPDATE decision_log SET at = at - interval '1 day' WHERE seq = 3`, 5, "3", CONTENT],
    [
      // An attacker who knows the hash function re-hashes the edited entry: the next link breaks.
      "edited and re-hashed entry",
      `UPDATE decision_log SET reason = 'nothing to see',
         hash = decision_log_entry_hash(prev_hash, seq, at, actor, actor_role, action, review_id,
                                        effect_key, 'nothing to see', details)
       WHERE seq = 3`,
      5,
      "4",
      LINK,
    ],
    ["deleted middle entry", `DELETE FROM decision_log WHERE seq = 3`, 4, "4", HOLE],
    ["deleted first entry", `DELETE FROM decision_log WHERE seq = 1`, 4, "2", HOLE],
    ["deleted last entry (head untouched)", `DELETE FROM decision_log WHERE seq = 5`, 4, "5", TAIL],
  ])("%s", async (_case, tamper, entries, brokenSeq, problem) => {
    await appendEntries(5);
    expect(await verifyDecisionLog(database.url), "intact before tampering").toEqual({ ok: true, entries: 5 });

    await behindTheTriggersBack(tamper);

    expect(await verifyDecisionLog(database.url)).toEqual({ ok: false, entries, brokenSeq, problem });
  });

  it("keeps refusing changes once the trigger is back on", async () => {
    await appendEntries(2);
    await behindTheTriggersBack(`UPDATE decision_log SET reason = 'x' WHERE seq = 1`);
    expect((await errorOf(`DELETE FROM decision_log WHERE seq = 2`)).message).toBe(
      "decision_log is append-only: DELETE refused",
    );
  });
});

describe("review_records.message, the message as received", () => {
  const MESSAGE = `{"zeta": 1, "id": "msg-order-417", "payload": {"b": 2, "a": 1}}`;

  async function insertRecord(): Promise<string> {
    const { rows } = await sql((c) =>
      c.query(
        `INSERT INTO review_records (category, reason, required_check, message, message_key)
         VALUES ('manual-review', 'invalid-payload', 'fix the payload', $1::json, 'id:msg-order-417')
         RETURNING id`,
        [MESSAGE],
      ),
    );
    return rows[0].id;
  }

  async function storedMessage(id: string): Promise<string> {
    const { rows } = await sql((c) => c.query(`SELECT message::text AS text FROM review_records WHERE id = $1`, [id]));
    return rows[0].text;
  }

  it("cannot be rewritten, not even to the same content in another key order", async () => {
    const id = await insertRecord();
    for (const replacement of [
      `{"id": "msg-other"}`,
      `{"id": "msg-order-417", "zeta": 1, "payload": {"a": 1, "b": 2}}`,
    ]) {
      const error = await errorOf(`UPDATE review_records SET message = '${replacement}'::json WHERE id = '${id}'`);
      expect(error.message).toBe(`review_records.message is immutable (record ${id})`);
      expect(error.code, "SQLSTATE integrity_constraint_violation").toBe("23000");
    }
    await expect(db().reviewRecord.update({ where: { id }, data: { message: { id: "msg-other" } } })).rejects.toThrow(
      "review_records.message is immutable",
    );
    expect(await storedMessage(id)).toBe(MESSAGE);
  });

  it("does not stop the record's other columns from changing", async () => {
    // The guard must not block normal work on the record (status changes, version bumps).
    const id = await insertRecord();
    await db().reviewRecord.update({ where: { id }, data: { status: "resolved", version: { increment: 1 } } });
    const { rows } = await sql((c) => c.query(`SELECT status, version FROM review_records WHERE id = $1`, [id]));
    expect(rows[0]).toEqual({ status: "resolved", version: 2 });
    expect(await storedMessage(id)).toBe(MESSAGE);
  });
});
