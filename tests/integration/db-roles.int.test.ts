/**
 * `review-console db roles --runtime-user NAME`: the least-privilege role the console and workers
 * connect as (lib/db/roles.ts). It does the console's work (records, tokens, decision-log
 * appends) and cannot change, empty or switch off the decision log, nor create anything.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as metrics } from "@/app/api/metrics/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { closeDb } from "@/lib/db/client";
import { withCredentials } from "@/lib/db/roles";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";

const database = setupTestDatabase();
/** Roles are cluster-wide: names of this run's own, dropped after the file. */
const created: string[] = [];
const runtimeName = () => {
  const name = `rc_int_app_${randomBytes(4).toString("hex")}`;
  created.push(name);
  return name;
};

// MIGRATION_DATABASE_URL only when a test gives it.
const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(database.current.url, args, { MIGRATION_DATABASE_URL: undefined, ...env });

const asOwner = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

/** The SQLSTATE a statement fails with as `client`'s role (null when it succeeds). */
async function failure(client: pg.Client, text: string): Promise<string | null> {
  await client.query("SAVEPOINT probe");
  try {
    await client.query(text);
    await client.query("RELEASE SAVEPOINT probe");
    return null;
  } catch (error) {
    await client.query("ROLLBACK TO SAVEPOINT probe");
    return (error as { code?: string }).code ?? String(error);
  }
}

afterAll(async () => {
  // Runs before the harness drops the database: the grants there go with DROP OWNED.
  await closeDb();
  for (const name of created) {
    const role = pg.escapeIdentifier(name);
    await asOwner(`DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${pg.escapeLiteral(name)}) THEN
          EXECUTE 'DROP OWNED BY ${role.replaceAll("'", "''")}';
          EXECUTE 'DROP ROLE ${role.replaceAll("'", "''")}';
        END IF;
      END $$`);
  }
});

describe("review-console db roles", () => {
  const name = runtimeName();
  const password = randomBytes(18).toString("base64url");
  let runtimeUrl = "";
  let runtime: pg.Client;

  beforeAll(async () => {
    const result = cli(["db", "roles", "--runtime-user", name, "--password", password]);
    expect(result, result.out).toMatchObject({ code: 0 });
    expect(result.stdout).toContain(`created role ${name}, password set`);
    expect(result.out, "the password is never printed").not.toContain(password);
    runtimeUrl = withCredentials(database.current.url, name, password);
    runtime = new pg.Client({ connectionString: runtimeUrl });
    await runtime.connect();
  }, 60_000);

  afterAll(async () => {
    await runtime?.end();
  });

  it("makes a plain login role: no superuser, CREATEDB, CREATEROLE, BYPASSRLS; NOINHERIT", async () => {
    const [role] = await asOwner(
      `SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolinherit, rolbypassrls, rolreplication
         FROM pg_roles WHERE rolname = $1`,
      [name],
    );
    expect(role).toEqual({
      rolcanlogin: true,
      rolsuper: false,
      rolcreatedb: false,
      rolcreaterole: false,
      rolinherit: false,
      rolbypassrls: false,
      rolreplication: false,
    });
    const [{ current_user }] = (await runtime.query("SELECT current_user")).rows;
    expect(current_user).toBe(name);
  });

  it("can do the console's work: tokens, a review record and decision-log entries, and read them", async () => {
    await closeDb();
    process.env.DATABASE_URL = runtimeUrl;
    try {
      const consumer = await tokenFor("consumer");
      const owner = await tokenFor("owner");
      const message = {
        id: `msg-roles-${name}`,
        kind: "roles.test",
        effectKey: `roles-${name}:1`,
        sequenceKey: `roles-${name}`,
        sequence: 1,
        payload: {},
      };
      const created = await call(report, {
        token: consumer,
        body: { category: "manual-review", reason: "retry-limit", requiredCheck: "look", attempts: 3, message },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await call(detail, { token: owner, params: { id: created.body.id } });
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.messageId).toBe(message.id);
      // The metrics' counts: kept by their triggers as this role wrote, read by the scrape.
      const scrape = await metrics(
        new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${owner}` } }),
        { params: Promise.resolve({}) },
      );
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain(
        'review_console_open_records{category="manual-review",reason="retry-limit"} 1',
      );
    } finally {
      await closeDb();
      process.env.DATABASE_URL = database.current.url;
    }

    // And directly: an append gets its seq and hash from the chain, and reads back.
    const { rows } = await runtime.query(
      `INSERT INTO decision_log (actor, action, reason) VALUES ('system:roles-test', 'test.append', 'as runtime')
       RETURNING seq::int, hash`,
    );
    expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
    const back = await runtime.query(`SELECT action FROM decision_log WHERE seq = $1`, [rows[0].seq]);
    expect(back.rows).toEqual([{ action: "test.append" }]);
    const [head] = (await runtime.query(`SELECT last_seq::int FROM decision_log_head`)).rows;
    expect(head.last_seq).toBe(rows[0].seq);
    const records = await runtime.query(`SELECT count(*)::int AS n FROM review_records`);
    expect(records.rows[0].n).toBeGreaterThan(0);
  });

  it("cannot change, empty or switch off the decision log, create tables or leave replication mode", async () => {
    await runtime.query("BEGIN");
    try {
      const denied = "42501"; // insufficient_privilege
      expect(await failure(runtime, `UPDATE decision_log SET reason = 'rewritten' WHERE seq = 1`)).toBe(denied);
      expect(await failure(runtime, `DELETE FROM decision_log WHERE seq = 1`)).toBe(denied);
      expect(await failure(runtime, `TRUNCATE decision_log`)).toBe(denied);
      expect(await failure(runtime, `ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only`)).toBe(denied);
      expect(await failure(runtime, `ALTER TABLE decision_log DISABLE TRIGGER ALL`)).toBe(denied);
      expect(await failure(runtime, `ALTER TABLE decision_log ADD COLUMN note text`)).toBe(denied);
      expect(await failure(runtime, `DROP TRIGGER decision_log_chain ON decision_log`)).toBe(denied);
      expect(await failure(runtime, `UPDATE decision_log_head SET last_seq = 0, last_hash = repeat('0', 64)`)).toBe(
        denied,
      );
      expect(await failure(runtime, `DELETE FROM decision_log_head`)).toBe(denied);
      expect(await failure(runtime, `UPDATE _review_console_migrations SET checksum = 'x'`)).toBe(denied);
      expect(await failure(runtime, `UPDATE _review_console_functions SET checksum = 'x'`)).toBe(denied);
      expect(await failure(runtime, `CREATE TABLE public.smuggled (id int)`)).toBe(denied);
      expect(await failure(runtime, `CREATE TABLE smuggled (id int)`)).toBe(denied);
      expect(await failure(runtime, `SET session_replication_role = replica`)).toBe(denied);
      // TRUNCATE is granted nowhere, not even on tables the role may delete from.
      expect(await failure(runtime, `TRUNCATE review_records CASCADE`)).toBe(denied);
      expect(await failure(runtime, `ALTER TABLE review_records DISABLE TRIGGER ALL`)).toBe(denied);
      // The counts are written by their triggers only; the role may fold them (the function's own
      // rights), not write one.
      expect(
        await failure(
          runtime,
          `INSERT INTO review_record_counts (status, category, reason, n)
                                      VALUES ('open', 'manual-review', 'forged', 1000)`,
        ),
      ).toBe(denied);
      expect(await failure(runtime, `UPDATE replay_counts SET n = 0`)).toBe(denied);
      expect(await failure(runtime, `DELETE FROM operation_pending_counts`)).toBe(denied);
      expect(await failure(runtime, `SELECT metric_counts_compact()`)).toBeNull();
    } finally {
      await runtime.query("ROLLBACK");
    }
    const [{ n }] = await asOwner(`SELECT count(*)::int AS n FROM decision_log WHERE reason = 'rewritten'`);
    expect(n).toBe(0);
  });

  it("is the only role besides the owner that may call decision_log_next_at(), which takes the head lock", async () => {
    // Any other role that can connect (PUBLIC's CONNECT) is refused: it could hold the head lock
    // in an open transaction and stop every append.
    const stranger = runtimeName();
    const strangerPassword = randomBytes(18).toString("base64url");
    await asOwner(`CREATE ROLE ${pg.escapeIdentifier(stranger)} LOGIN PASSWORD ${pg.escapeLiteral(strangerPassword)}`);
    await asOwner(`GRANT USAGE ON SCHEMA public TO ${pg.escapeIdentifier(stranger)}`);
    const other = new pg.Client({
      connectionString: withCredentials(database.current.url, stranger, strangerPassword),
    });
    await other.connect();
    try {
      await other.query("BEGIN");
      expect(await failure(other, `SELECT decision_log_next_at()`)).toBe("42501");
      await other.query("ROLLBACK");
      // The head is free: the runtime role appends at once (it would wait on a held lock).
      await runtime.query(`SET lock_timeout = '2s'`);
      const { rows } = await runtime.query(
        `INSERT INTO decision_log (actor, action) VALUES ('system:roles-test', 'test.next-at') RETURNING seq::int`,
      );
      expect(rows[0].seq).toBeGreaterThan(0);
    } finally {
      await other.end();
      await runtime.query(`RESET lock_timeout`);
    }
    const grantees = await asOwner<{ grantee: string }>(
      `SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END AS grantee
         FROM pg_proc p, aclexplode(p.proacl) AS a
        WHERE p.oid = 'public.decision_log_next_at()'::regprocedure AND a.privilege_type = 'EXECUTE'
          AND a.grantee <> p.proowner ORDER BY 1`,
    );
    expect(grantees.map((g) => g.grantee)).not.toContain("PUBLIC");
    expect(grantees.map((g) => g.grantee)).toContain(name);
    expect(grantees.map((g) => g.grantee)).not.toContain(stranger);
  });

  it("runs again safely, and a re-run grants a table a migration added since", async () => {
    const again = cli(["db", "roles", "--runtime-user", name]);
    expect(again, again.out).toMatchObject({ code: 0 });
    expect(again.stdout).toContain(`kept role ${name}`);
    expect(again.stdout).not.toContain("password set");

    // The password stays as it was: the role still signs in with it.
    const check = new pg.Client({ connectionString: runtimeUrl });
    await check.connect();
    await check.end();

    await asOwner(`CREATE TABLE public.roles_test_new (id int PRIMARY KEY, note text)`);
    await runtime.query("BEGIN");
    expect(await failure(runtime, `INSERT INTO roles_test_new VALUES (1, 'x')`)).toBe("42501");
    await runtime.query("ROLLBACK");

    const regrant = cli(["db", "roles", "--runtime-user", name]);
    expect(regrant, regrant.out).toMatchObject({ code: 0 });
    await runtime.query(`INSERT INTO roles_test_new VALUES (1, 'x')`);
    await runtime.query(`UPDATE roles_test_new SET note = 'y' WHERE id = 1`);
    expect((await runtime.query(`SELECT note FROM roles_test_new`)).rows).toEqual([{ note: "y" }]);
    await runtime.query(`DELETE FROM roles_test_new`);
    await runtime.query("BEGIN");
    expect(await failure(runtime, `TRUNCATE roles_test_new`)).toBe("42501");
    await runtime.query("ROLLBACK");
    await asOwner(`DROP TABLE public.roles_test_new`);
  }, 60_000);

  it("with separate roles, the CLI migrates as the owner, grants new tables, and works as the runtime role", async () => {
    const split = { DATABASE_URL: runtimeUrl, MIGRATION_DATABASE_URL: database.current.url };
    await asOwner(`CREATE TABLE public.roles_test_migrated (id int)`);
    const migrated = cli(["migrate"], split);
    expect(migrated, migrated.out).toMatchObject({ code: 0 });
    expect(migrated.stdout).toContain(`granted runtime role ${name}`);
    expect((await runtime.query(`SELECT count(*)::int AS n FROM roles_test_migrated`)).rows).toEqual([{ n: 0 }]);
    await asOwner(`DROP TABLE public.roles_test_migrated`);

    const token = cli(["token", "add", "--name", "split-roles", "--role", "auditor"], split);
    expect(token, token.out).toMatchObject({ code: 0 });
    const [row] = await asOwner(
      `SELECT actor FROM decision_log WHERE action = 'token.created' ORDER BY seq DESC LIMIT 1`,
    );
    expect(row.actor).toBe("system:cli");

    // Only the runtime role's URL, on a migrated database: nothing is pending, so the command
    // needs no right to create anything and works.
    const alone = cli(["token", "add", "--name", "alone", "--role", "auditor"], { DATABASE_URL: runtimeUrl });
    expect(alone, alone.out).toMatchObject({ code: 0 });
  }, 60_000);

  it("takes back what an earlier grant gave too much (UPDATE on the log, TRUNCATE anywhere)", async () => {
    await asOwner(`GRANT UPDATE, DELETE, TRUNCATE ON decision_log TO ${pg.escapeIdentifier(name)}`);
    await asOwner(`GRANT TRUNCATE ON review_records TO ${pg.escapeIdentifier(name)}`);
    const result = cli(["db", "roles", "--runtime-user", name]);
    expect(result, result.out).toMatchObject({ code: 0 });
    const [row] = await asOwner(
      `SELECT has_table_privilege($1, 'decision_log', 'UPDATE') AS upd,
              has_table_privilege($1, 'decision_log', 'TRUNCATE') AS trunc_log,
              has_table_privilege($1, 'review_records', 'TRUNCATE') AS trunc_records`,
      [name],
    );
    expect(row).toEqual({ upd: false, trunc_log: false, trunc_records: false });
  }, 60_000);
});

describe("review-console db roles refuses", () => {
  it("the connecting user, a superuser, a malformed name and a missing option (exit 1, one line)", async () => {
    const [{ current_user: owner }] = await asOwner(`SELECT current_user`);
    const self = cli(["db", "roles", "--runtime-user", owner]);
    expect(self.code).toBe(1);
    expect(self.out).toMatch(/error: runtime user: .* connects as/);

    const superName = runtimeName();
    await asOwner(`CREATE ROLE ${pg.escapeIdentifier(superName)} LOGIN SUPERUSER`);
    const superuser = cli(["db", "roles", "--runtime-user", superName]);
    expect(superuser.code).toBe(1);
    expect(superuser.out).toContain(`error: runtime user: ${superName} is a superuser`);

    const bad = cli(["db", "roles", "--runtime-user", "app; DROP TABLE decision_log"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("error: --runtime-user: must start with a letter or _");

    const missing = cli(["db", "roles"]);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/required option '--runtime-user <name>'/);
  }, 60_000);

  it("to call the log append-only while PUBLIC may still update it", async () => {
    await asOwner(`GRANT UPDATE ON decision_log TO PUBLIC`);
    try {
      const result = cli(["db", "roles", "--runtime-user", runtimeName()]);
      expect(result.code).toBe(1);
      expect(result.out).toMatch(/error: runtime user: \S+ still has UPDATE on decision_log through a grant to PUBLIC/);
    } finally {
      await asOwner(`REVOKE UPDATE ON decision_log FROM PUBLIC`);
    }
  }, 60_000);

  it("a role that can SET ROLE to the tables' owner", async () => {
    const member = runtimeName();
    const [{ current_user: owner }] = await asOwner(`SELECT current_user`);
    await asOwner(`CREATE ROLE ${pg.escapeIdentifier(member)} LOGIN IN ROLE ${pg.escapeIdentifier(owner)}`);
    const result = cli(["db", "roles", "--runtime-user", member]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`error: runtime user: ${member} is a member of ${owner}, which is a superuser`);
  }, 60_000);
});
