/**
 * The migration runner (lib/db/migrate.ts): what `npm start`, the CLI and the test template rely
 * on. Each case works on its own database, and cases that need a different set of migrations use
 * a copy of prisma/migrations under the OS temp directory, so the real files are never touched.
 */
import { randomBytes } from "node:crypto";
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  FUNCTIONS_DIR,
  loadFunctions,
  loadMigrations,
  loadRewordings,
  migrate,
  MIGRATIONS_DIR,
} from "@/lib/db/migrate";
import { createTestDatabase, dropTestDatabase, withClient, type TestDatabase } from "../support/database";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A database with nothing in it: not cloned from the migrated template. */
async function emptyDatabase(): Promise<TestDatabase> {
  const name = `rc_test_${randomBytes(6).toString("hex")}`;
  await withClient(inject("pgServerUrl"), (c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0`));
  const url = new URL(inject("pgServerUrl"));
  url.pathname = `/${name}`;
  const database = { url: url.toString(), name };
  cleanups.push(() => dropTestDatabase(database));
  return database;
}

/** A copy of the template, i.e. a database on which the real migrations are already applied. */
async function migratedDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => dropTestDatabase(database));
  return database;
}

/** A copy of prisma/migrations that a case may edit and add to. */
async function migrationsCopy(): Promise<{ dir: string; add: (name: string, sql: string) => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "rc-migrations-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(MIGRATIONS_DIR, dir, { recursive: true });
  return {
    dir,
    add: async (name, sql) => {
      await mkdir(path.join(dir, name));
      await writeFile(path.join(dir, name, "migration.sql"), sql);
    },
  };
}

async function recorded(url: string): Promise<{ name: string; checksum: string; applied_at: Date }[]> {
  return withClient(url, async (c) => {
    const { rows } = await c.query(`SELECT name, checksum, applied_at FROM "_review_console_migrations" ORDER BY name`);
    return rows;
  });
}

async function tableExists(url: string, table: string): Promise<boolean> {
  return withClient(url, async (c) => {
    const { rows } = await c.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`public.${table}`]);
    return rows[0].present as boolean;
  });
}

const LATE = "29991231000000"; // sorts after every real migration

describe("migrate()", () => {
  it("applies every migration to an empty database and records each with its checksum", async () => {
    const migrations = await loadMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    const database = await emptyDatabase();
    const before = await withClient(database.url, (c) =>
      c.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`),
    );
    expect(before.rows, "the database should start without tables").toEqual([]);

    const result = await migrate(database.url);

    expect(result).toEqual({ applied: migrations.map((m) => m.name), alreadyApplied: 0 });
    expect((await recorded(database.url)).map(({ name, checksum }) => ({ name, checksum }))).toEqual(
      migrations.map(({ name, checksum }) => ({ name, checksum })),
    );
    // The SQL really ran, seed row included.
    const head = await withClient(database.url, (c) =>
      c.query(`SELECT last_seq::int, last_hash FROM decision_log_head`),
    );
    expect(head.rows).toEqual([{ last_seq: 0, last_hash: "0".repeat(64) }]);
  });

  it("applies nothing on a second run and leaves the records as they were", async () => {
    const database = await emptyDatabase();
    await migrate(database.url);
    const first = await recorded(database.url);

    const second = await migrate(database.url);

    expect(second).toEqual({ applied: [], alreadyApplied: first.length });
    expect(await recorded(database.url)).toEqual(first);
  });

  it("applies each migration exactly once when several processes migrate a fresh database at once", async () => {
    // The extra migration counts its own executions; the real ones would fail on a second run
    // (CREATE TYPE), this one would not: it proves "once" even for an idempotent migration.
    const copy = await migrationsCopy();
    await copy.add(
      `${LATE}_count_runs`,
      `CREATE TABLE IF NOT EXISTS migration_runs (at timestamptz NOT NULL DEFAULT clock_timestamp());
       INSERT INTO migration_runs DEFAULT VALUES;`,
    );
    const names = (await loadMigrations(copy.dir)).map((m) => m.name);
    const database = await emptyDatabase();

    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => migrate(database.url, copy.dir)));

    const failures = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []));
    expect(failures, "concurrent migrate() calls that failed").toEqual([]);
    const results = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    expect(results.flatMap((r) => r.applied).sort(), "each migration applied by exactly one process").toEqual(names);
    for (const r of results) expect(r.applied.length + r.alreadyApplied).toBe(names.length);
    expect((await recorded(database.url)).map((r) => r.name)).toEqual(names);
    const runs = await withClient(database.url, (c) => c.query(`SELECT count(*)::int AS n FROM migration_runs`));
    expect(runs.rows[0].n, "executions of the counting migration").toBe(1);
  });

  it("takes a reworded migration's earlier checksum as current, and records the file's", async () => {
    const rewordings = await loadRewordings();
    const migrations = await loadMigrations();
    const names = new Set(migrations.map((m) => m.name));
    expect(
      [...rewordings.keys()].filter((n) => !names.has(n)),
      "reworded.json names unknown migrations",
    ).toEqual([]);
    const [name, [former]] = [...rewordings.entries()][0]!;
    const current = migrations.find((m) => m.name === name)!.checksum;
    expect(former).not.toBe(current);
    const database = await migratedDatabase();
    await withClient(database.url, (c) =>
      c.query(`UPDATE "_review_console_migrations" SET checksum = $2 WHERE name = $1`, [name, former]),
    );

    const result = await migrate(database.url);

    expect(result.applied).toEqual([]);
    expect((await recorded(database.url)).find((r) => r.name === name)?.checksum).toBe(current);
  });

  it("refuses an earlier checksum that reworded.json does not list", async () => {
    const database = await migratedDatabase();
    const [first] = await loadMigrations();
    await withClient(database.url, (c) =>
      c.query(`UPDATE "_review_console_migrations" SET checksum = $2 WHERE name = $1`, [first!.name, "0".repeat(64)]),
    );

    await expect(migrate(database.url)).rejects.toThrow(`migration ${first!.name} was changed after it was applied`);
  });

  it("refuses a migration whose file changed after it was applied, naming it, and applies nothing", async () => {
    const database = await migratedDatabase();
    const copy = await migrationsCopy();
    const [first] = await loadMigrations();
    await appendFile(path.join(copy.dir, first!.name, "migration.sql"), "\n-- edited after it was applied\n");
    await copy.add(`${LATE}_pending`, `CREATE TABLE pending_effect (id integer);`);
    const before = await recorded(database.url);

    await expect(migrate(database.url, copy.dir)).rejects.toThrow(
      `migration ${first!.name} was changed after it was applied (checksum differs)`,
    );

    expect(await recorded(database.url)).toEqual(before);
    expect(await tableExists(database.url, "pending_effect"), "a pending migration ran despite the refusal").toBe(
      false,
    );
  });

  it("refuses a database that has a migration this code does not know, naming it", async () => {
    const database = await migratedDatabase();
    const copy = await migrationsCopy();
    await copy.add(`${LATE}_from_the_future`, `CREATE TABLE future_effect (id integer);`);
    await migrate(database.url, copy.dir);

    // Older code (the real directory) against the newer database.
    await expect(migrate(database.url)).rejects.toThrow(
      `database has migrations this code does not know: ${LATE}_from_the_future`,
    );
  });

  it("refuses a misnamed migration folder instead of skipping it silently", async () => {
    const database = await emptyDatabase();
    const copy = await migrationsCopy();
    await copy.add(`${LATE}_Add-Index`, `CREATE TABLE never_applied (id integer);`);
    await expect(migrate(database.url, copy.dir)).rejects.toThrow(`${LATE}_Add-Index`);
    expect(await tableExists(database.url, "review_records")).toBe(false);
  });

  it("rolls a failing migration back completely, records nothing, and applies it once fixed", async () => {
    const database = await migratedDatabase();
    const copy = await migrationsCopy();
    const name = `${LATE}_broken`;
    // The error comes at run time, after two statements took effect (a syntax error would be
    // caught while parsing, before anything ran, and prove nothing about the rollback).
    const effects = `CREATE TABLE partial_effect (id integer);
      ALTER TABLE review_records ADD COLUMN partial_effect text;`;
    await copy.add(name, `${effects}\nSELECT 1 / 0;`);
    const before = await recorded(database.url);

    await expect(migrate(database.url, copy.dir)).rejects.toThrow(`migration ${name} failed: division by zero`);

    expect(await recorded(database.url), "the failed migration must not be recorded").toEqual(before);
    expect(await tableExists(database.url, "partial_effect"), "its CREATE TABLE survived").toBe(false);
    const column = await withClient(database.url, (c) =>
      c.query(
        `SELECT 1 FROM information_schema.columns WHERE table_name = 'review_records' AND column_name = 'partial_effect'`,
      ),
    );
    expect(column.rowCount, "its ALTER TABLE survived").toBe(0);

    // Nothing half-done stands in the way of the corrected migration.
    await writeFile(path.join(copy.dir, name, "migration.sql"), effects);
    expect(await migrate(database.url, copy.dir)).toEqual({ applied: [name], alreadyApplied: before.length });
    expect(await tableExists(database.url, "partial_effect")).toBe(true);
  });

  it("commits a migration and its record as one unit: when recording fails, the effects go too", async () => {
    // The statements of one migration already share Postgres' implicit transaction for a
    // multi-statement query; only a failure *after* the SQL (here: the record's INSERT hits the
    // row the migration wrote itself) shows that the runner's transaction spans the record too.
    const database = await migratedDatabase();
    const copy = await migrationsCopy();
    const name = `${LATE}_records_itself`;
    await copy.add(
      name,
      `CREATE TABLE partial_effect (id integer);
       INSERT INTO "_review_console_migrations" (name, checksum) VALUES ('${name}', 'not-its-checksum');`,
    );
    const before = await recorded(database.url);

    await expect(migrate(database.url, copy.dir)).rejects.toThrow(`migration ${name} failed: duplicate key value`);

    expect(await recorded(database.url)).toEqual(before);
    expect(await tableExists(database.url, "partial_effect"), "the migration committed without its record").toBe(false);
  });
});

/** Every function of the public schema (not an extension's), with its definition as PostgreSQL prints it. */
async function functionDefinitions(url: string): Promise<Record<string, string>> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ name: string; definition: string }>(
      `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.definition]));
  });
}

describe("SQL functions: one file each (prisma/functions, ADR 0044)", () => {
  it("each function's current definition is its file: the migrations alone give the same definitions", async () => {
    const onlyMigrations = await emptyDatabase();
    await migrate(onlyMigrations.url, (await migrationsCopy()).dir); // a copy: no function files
    const withFiles = await emptyDatabase();
    await migrate(withFiles.url);
    const files = (await loadFunctions()).map((f) => f.name.replace(/\.sql$/, "")).sort();
    const defined = await functionDefinitions(withFiles.url);
    expect(Object.keys(defined).sort(), "a function without a file, or a file without a function").toEqual(files);
    expect(defined).toEqual(await functionDefinitions(onlyMigrations.url));
  });

  it("applies a function file whose text changed, once, and names a file that fails", async () => {
    const migrations = await migrationsCopy();
    const functions = await mkdtemp(path.join(os.tmpdir(), "rc-functions-"));
    cleanups.push(() => rm(functions, { recursive: true, force: true }));
    await cp(FUNCTIONS_DIR, functions, { recursive: true });
    const database = await emptyDatabase();
    await migrate(database.url, migrations.dir, functions);
    const appliedAt = async () =>
      withClient(database.url, async (c) => {
        const { rows } = await c.query(
          `SELECT applied_at FROM "_review_console_functions" WHERE name = 'decision_log_ensure_partitions.sql'`,
        );
        return (rows[0]?.applied_at as Date).getTime();
      });
    const first = await appliedAt();

    const file = path.join(functions, "decision_log_ensure_partitions.sql");
    const text = await readFile(file, "utf8");
    await writeFile(
      file,
      text.replace(/\$\$;\s*$/, () => "-- changed in place\n$$;\n"),
    );
    await migrate(database.url, migrations.dir, functions);
    expect((await functionDefinitions(database.url)).decision_log_ensure_partitions).toContain("-- changed in place");
    const second = await appliedAt();
    expect(second).toBeGreaterThan(first);
    await migrate(database.url, migrations.dir, functions);
    expect(await appliedAt(), "an unchanged file is not applied again").toBe(second);

    await writeFile(file, "CREATE OR REPLACE FUNCTION decision_log_ensure_partitions(");
    await expect(migrate(database.url, migrations.dir, functions)).rejects.toThrow(
      "function file decision_log_ensure_partitions.sql failed",
    );
    expect((await functionDefinitions(database.url)).decision_log_ensure_partitions).toContain("-- changed in place");
  });
});

describe("upgrading to error classes by shape (20261206000000_error_class_by_shape)", () => {
  const UPGRADE = "20261206000000_error_class_by_shape";

  it("keeps every existing record's class, classes new ones by the new rule, and searches the last error", async () => {
    const copy = await migrationsCopy();
    await rm(path.join(copy.dir, UPGRADE), { recursive: true });
    const database = await emptyDatabase();
    await migrate(database.url, copy.dir); // the schema of the release before
    const insert = (id: string, lastError: string) =>
      withClient(database.url, (c) =>
        c.query(
          `INSERT INTO review_records (category, reason, required_check, last_error, message, message_key, message_id)
           VALUES ('manual-review', 'retry-limit', 'check', $2, $3::json, 'id:' || $1, $1) RETURNING id::text`,
          [id, lastError, JSON.stringify({ id })],
        ),
      );
    await insert("old-1", "worker billing-worker-2 stopped responding");
    const classes = () =>
      withClient(database.url, async (c) => {
        const { rows } = await c.query(`SELECT message_id, error_class FROM review_records ORDER BY seq`);
        return rows.map((r) => [r.message_id, r.error_class]);
      });
    expect(await classes()).toEqual([["old-1", "worker"]]);

    await cp(path.join(MIGRATIONS_DIR, UPGRADE), path.join(copy.dir, UPGRADE), { recursive: true });
    await migrate(database.url, copy.dir);
    expect(await classes(), "an existing record keeps its class").toEqual([["old-1", "worker"]]);
    // The column is a plain one now: intake writes it (a client's class, else the rule).
    await withClient(database.url, (c) =>
      c.query(
        `INSERT INTO review_records (category, reason, required_check, last_error, error_class, message, message_key)
         VALUES ('manual-review', 'retry-limit', 'check', 'x', review_error_class('worker billing-worker-3 stopped responding'),
                 '{}'::json, 'id:new-1')`,
      ),
    );
    expect((await classes())[1]).toEqual([null, "worker <id> stopped responding"]);
    const found = await withClient(database.url, (c) =>
      c.query(
        `SELECT message_id FROM review_records
          WHERE review_search_text(message, reason, required_check, last_error) LIKE '%billing-worker-2%'`,
      ),
    );
    expect(found.rows).toEqual([{ message_id: "old-1" }]);
  });
});
