/**
 * The worker's SQL path (packages/consumer/src/pipeline.ts): a handler's statements travel with bind
 * parameters, one statement per Parse, so nothing in them can reach the runtime's BEGIN,
 * bookkeeping or COMMIT, and no message is acknowledged on a commit PostgreSQL did not confirm.
 * Every case ends either applied with its writes, journal and sequence, or refused with a clear
 * error and nothing applied. Runs ConsumerRuntime.process directly (the transport acks only what
 * it returns without throwing); no broker needed.
 */
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createKindRegistry } from "@review-console/contract";
import { closeConsumerPool, CommitNotConfirmed, commitPipelined, consumerPool } from "@/packages/consumer/src/pipeline";
import type { ConsumerRuntime, ConsumerTx, IncomingMessage, Outcome } from "@review-console/consumer";
import { inProcessRuntime } from "@/testing/worker/in-process";
import { uniqueName } from "@/testing/worker/harness";
import { setupTestDatabase } from "../support/database";

const database = setupTestDatabase();
/** The test's own reads and writes, on a connection of their own. */
async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  // Pinned too: under standard_conforming_strings=off even the schema's own SQL functions (which
  // the planner inlines from their text) misparse, and the test's reads must not depend on that.
  const client = new pg.Client({
    connectionString: database.current.url,
    options: "-c standard_conforming_strings=on",
  });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const registry = createKindRegistry([
  { kind: "sql.case", schemas: { "1": z.looseObject({ schema: z.literal("1") }) }, temporaryReasons: {} },
]);

/** What the handler of the next message does in its transaction. */
let write: (tx: ConsumerTx, effectKey: string) => Promise<void> | void = () => {};

function runtime(): ConsumerRuntime {
  return inProcessRuntime({
    name: uniqueName("sql-path"),
    registry,
    gapGraceMs: 0,
    handlers: { "sql.case": { effect: "local", apply: ({ tx, effectKey }) => Promise.resolve(write(tx, effectKey)) } },
  });
}

function message(key: string, sequence = 1): IncomingMessage {
  const envelope = {
    id: `msg-${key}-${sequence}`,
    kind: "sql.case",
    effectKey: `${key}:${sequence}`,
    sequenceKey: key,
    sequence,
    payload: { schema: "1" },
  };
  return {
    body: { parsed: true, value: envelope, text: JSON.stringify(envelope) },
    source: { transport: "test" },
    deliveryCount: 1,
  };
}

/** The state a message left, read on a fresh connection after the worker's pool is gone. */
async function stateOf(key: string) {
  // Dropping the pool ends any transaction a connection might still hold open: what survives is
  // what was committed.
  await closeConsumerPool();
  const [journal] = await sql<{ state: string }>(`SELECT state::text FROM effect_journal WHERE sequence_key = $1`, [
    key,
  ]);
  const [sequence] = await sql<{ last: string }>(
    `SELECT last_sequence::text AS last FROM sequence_state WHERE sequence_key = $1`,
    [key],
  );
  const rows = await sql<{ v: string }>(`SELECT v FROM sql_cases WHERE k = $1`, [key]);
  const [record] = await sql<{ reason: string; last_error: string }>(
    `SELECT reason, last_error FROM review_records WHERE message->>'sequenceKey' = $1`,
    [key],
  );
  return { journal: journal?.state ?? null, last: Number(sequence?.last ?? 0), rows: rows.map((r) => r.v), record };
}

beforeAll(async () => {
  await sql(`CREATE TABLE sql_cases (k text NOT NULL, v text)`);
  await sql(`CREATE TABLE canary (x int)`);
});
afterAll(() => closeConsumerPool());

describe("a handler's statement cannot change what the runtime sends around it", () => {
  it("a queued statement ending in a -- comment: applied with its journal and sequence", async () => {
    const key = uniqueName("dash");
    write = (tx, k) =>
      tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, $2) -- the COMMIT used to follow here`, [key, k]);
    const outcome = await runtime().process(message(key));
    expect(outcome).toEqual({ type: "applied", providerRef: null });
    expect(await stateOf(key)).toMatchObject({ journal: "applied", last: 1, rows: [`${key}:1`] });
  });

  it("a queued statement leaving a /* comment open: refused with the server's error, nothing applied", async () => {
    const key = uniqueName("open");
    write = (tx) => tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, 'x') /* never closed`, [key]);
    const outcome = await runtime().process(message(key));
    expect(outcome).toMatchObject({ type: "review", reason: "handler-error" });
    const state = await stateOf(key);
    expect(state).toMatchObject({ journal: null, last: 0, rows: [] });
    expect(state.record?.last_error).toMatch(/unterminated \/\* comment/);
  });

  it("a dollar-quoted body with a non-ASCII tag keeps its $1 as text, whatever the value holds", async () => {
    const key = uniqueName("dollar");
    // Written into the body as a literal, this value would close the body early and run the DROP.
    write = (tx) =>
      tx.queue(`INSERT INTO sql_cases (k, v) SELECT split_part($1, '|', 1), $ä$ $1 stays text $ä$`, [
        `${key}|$ä$; DROP TABLE canary; --`,
      ]);
    expect(await runtime().process(message(key))).toMatchObject({ type: "applied" });
    expect(await stateOf(key)).toMatchObject({ journal: "applied", last: 1, rows: [" $1 stays text "] });
    expect(await sql(`SELECT to_regclass('canary')::text AS t`)).toEqual([{ t: "canary" }]);
  });

  it("a value '; DROP TABLE canary; -- is stored as it is and drops nothing", async () => {
    const key = uniqueName("drop");
    const value = `'; DROP TABLE canary; --`;
    write = (tx) => tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, $2)`, [key, value]);
    expect(await runtime().process(message(key))).toMatchObject({ type: "applied" });
    expect(await stateOf(key)).toMatchObject({ journal: "applied", rows: [value] });
    expect(await sql(`SELECT to_regclass('canary')::text AS t`)).toEqual([{ t: "canary" }]);
  });

  it("on a database with standard_conforming_strings=off the path pins it on: '\\' is one backslash", async () => {
    await sql(`ALTER DATABASE ${pg.escapeIdentifier(database.current.name)} SET standard_conforming_strings = off`);
    await closeConsumerPool(); // new connections take the database's setting
    try {
      const key = uniqueName("scs");
      let seen: unknown;
      write = async (tx) => {
        seen = (await tx.query<{ s: string }>(`SELECT current_setting('standard_conforming_strings') AS s`))[0]?.s;
        tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, '\\' || $2)`, [key, `\\'; DROP TABLE canary; --`]);
      };
      expect(await runtime().process(message(key))).toMatchObject({ type: "applied" });
      expect(seen).toBe("on");
      expect(await stateOf(key)).toMatchObject({ journal: "applied", rows: [`\\\\'; DROP TABLE canary; --`] });
      expect(await sql(`SELECT to_regclass('canary')::text AS t`)).toEqual([{ t: "canary" }]);
    } finally {
      await sql(`ALTER DATABASE ${pg.escapeIdentifier(database.current.name)} RESET standard_conforming_strings`);
      await closeConsumerPool();
    }
  });

  it("a handler may not end the transaction itself: COMMIT in its statement is refused, nothing applied", async () => {
    const key = uniqueName("commit");
    write = (tx) => {
      tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, 'early')`, [key]);
      tx.queue(`/* innocuous */ COMMIT`);
    };
    const outcome = await runtime().process(message(key));
    expect(outcome).toMatchObject({ type: "review", reason: "handler-error" });
    const state = await stateOf(key);
    expect(state).toMatchObject({ journal: null, last: 0, rows: [] });
    expect(state.record?.last_error).toMatch(/may not control the transaction/);
  });

  it("a commit that fails at COMMIT (a deferred constraint) is not acknowledged: process throws, nothing applied", async () => {
    await sql(`CREATE TABLE deferred_parent (id int PRIMARY KEY)`);
    await sql(`CREATE TABLE deferred_child (parent int REFERENCES deferred_parent (id) DEFERRABLE INITIALLY DEFERRED)`);
    const key = uniqueName("deferred");
    write = (tx) => {
      tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, 'with a dangling child')`, [key]);
      tx.queue(`INSERT INTO deferred_child (parent) VALUES (42)`);
    };
    await expect(runtime().process(message(key))).rejects.toThrow(/foreign key/);
    expect(await stateOf(key)).toMatchObject({ journal: null, last: 0, rows: [] });
  });
});

describe("a commit is proven before anything is acknowledged", () => {
  it("statements that ran outside the step's transaction are reported, not taken for its commit", async () => {
    const client = await consumerPool().connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<{ txid: string }>("SELECT pg_current_xact_id()::text AS txid");
      // What a handler statement that ends the transaction would do (handlerStatement refuses the
      // plain ones; this is the check behind it): the rest runs, and COMMIT, on their own.
      const early = commitPipelined(
        client,
        [{ text: "COMMIT" }, { text: "SELECT pg_current_xact_id()::text AS txid" }],
        rows[0]!.txid,
      );
      await expect(early).rejects.toThrow(CommitNotConfirmed);
      await expect(early).rejects.toThrow(/outside the message's transaction/);
    } finally {
      client.release(new Error("discarded by the test"));
    }
  });

  it("a COMMIT that answers ROLLBACK (the block had failed) is not a commit", async () => {
    const client = await consumerPool().connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT 1/0").catch(() => {});
      await expect(commitPipelined(client, [])).rejects.toThrow(/COMMIT answered ROLLBACK/);
    } finally {
      client.release(new Error("discarded by the test"));
    }
  });
});

describe("parameters are stored exactly as node-postgres stores them", () => {
  const columns = {
    t: "text",
    n: "numeric",
    b: "bigint",
    f: "boolean",
    ts: "timestamptz",
    by: "bytea",
    arr: "text[]",
    j: "jsonb",
  } as const;
  type Column = keyof typeof columns;

  beforeAll(async () => {
    const defs = Object.entries(columns)
      .map(([name, type]) => `${name} ${type}`)
      .join(", ");
    await sql(`CREATE TABLE typed_a (k text, ${defs})`);
    await sql(`CREATE TABLE typed_b (k text, ${defs})`);
  });

  // Strings PostgreSQL can hold: any Unicode but NUL and lone surrogates (quotes and backslashes
  // are what the old inliner got wrong, so they come often).
  const storableChar = fc.oneof(
    fc.constantFrom("'", "\\", '"', "$", "-", "/*", "*/", "$ä$", "\n", "😀", "ß"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  );
  const storableString = fc
    .array(storableChar, { maxLength: 12 })
    .map((parts) => parts.join(""))
    .filter((s) => !s.includes("\u0000"));
  const jsonValue = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes("\\u0000"));
  const valueFor: Record<Column, fc.Arbitrary<unknown>> = {
    t: fc.oneof(storableString, fc.constant(null)),
    n: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
    b: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constant(null)),
    f: fc.oneof(fc.boolean(), fc.constant(null)),
    ts: fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true }),
    by: fc.oneof(
      fc.uint8Array({ maxLength: 16 }),
      fc.uint8Array({ maxLength: 16 }).map((a) => Buffer.from(a)),
    ),
    arr: fc.array(fc.oneof(storableString, fc.constant(null)), { maxLength: 4 }),
    // Objects: node-postgres sends a JS array as a PostgreSQL array literal, not JSON, so an array
    // into jsonb is a handler's mistake (it fails, the same way through both paths). Failing
    // jsonb binds by the hundred on one session also made the embedded PostgreSQL 17 spin on a
    // later one (not reproduced in isolation).
    j: jsonValue.map((v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : { v })),
  };

  // Each case is a full message through the runtime: on a loaded machine they add up (120 s).
  it("for every column type, through tx.queue and tx.query, the stored text equals node-postgres' own insert", async () => {
    const rt = runtime();
    const key = uniqueName("typed");
    let cases = 0;
    const names = Object.keys(columns) as Column[];
    const insert = (table: string) =>
      `INSERT INTO ${table} (k, ${names.join(", ")}) VALUES ($1, ${names.map((_, i) => `$${i + 2}`).join(", ")})`;
    const direct = new pg.Client({ connectionString: database.current.url });
    await direct.connect();
    try {
      await fc.assert(
        fc.asyncProperty(fc.record(valueFor), fc.boolean(), async (row, queued) => {
          // A key per case: a case that fails leaves its key's sequence where it was.
          const caseKey = `${key}-${++cases}`;
          const id = caseKey;
          const values = [id, ...names.map((n) => row[n])];
          // node-postgres' own insert first: what it stores, or how it fails (an array into
          // jsonb becomes a PostgreSQL array literal, which is not always JSON).
          const expected = await direct.query(insert("typed_b"), values).then(
            () => null,
            (error: Error) => error.message,
          );
          write = async (tx) => {
            if (queued) tx.queue(insert("typed_a"), values);
            else await tx.query(insert("typed_a"), values);
          };
          const outcome: Outcome = await rt.process(message(caseKey));
          if (expected !== null) {
            expect(outcome).toMatchObject({ type: "review", reason: "handler-error" });
            const [record] = await sql(`SELECT last_error FROM review_records WHERE message->>'id' = $1`, [
              `msg-${caseKey}-1`,
            ]);
            expect(record?.last_error).toContain(expected);
            return;
          }
          expect(outcome).toMatchObject({ type: "applied" });
          const read = (table: string) =>
            direct.query(`SELECT ${names.map((n) => `${n}::text`).join(", ")} FROM ${table} WHERE k = $1`, [id]);
          expect((await read("typed_a")).rows).toEqual((await read("typed_b")).rows);
        }),
        { numRuns: 120 },
      );
    } finally {
      await direct.end();
    }
  }, 120_000);

  it("a lone surrogate or a NUL is refused with a clear error naming the parameter, nothing stored", async () => {
    const cases: [string, unknown][] = [
      ["lone high surrogate", "abc\ud800"],
      ["lone low surrogate in an array", ["ok", "\udc00x"]],
      ["NUL in a string", "a\u0000b"],
      ["NUL in a JSON object's key", { "k\u0000": 1 }],
    ];
    for (const [label, value] of cases) {
      const key = uniqueName("refused");
      write = (tx) => tx.queue(`INSERT INTO sql_cases (k, v) VALUES ($1, $2)`, [key, value]);
      const outcome = await runtime().process(message(key));
      expect(outcome, label).toMatchObject({ type: "review", reason: "handler-error" });
      const state = await stateOf(key);
      expect(state, label).toMatchObject({ journal: null, last: 0, rows: [] });
      expect(state.record?.last_error, label).toMatch(/parameter \$2.*(lone surrogate|NUL)/);
    }
  });
});
