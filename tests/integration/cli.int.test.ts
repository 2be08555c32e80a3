/**
 * The `review-console` command as an operator runs it: a child process against the database of
 * DATABASE_URL, judged by its output and exit code.
 */
import { describe, expect, it } from "vitest";
import { hashToken } from "@/lib/auth";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const cli = (args: string[]) => runCli(database.current.url, args);

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

describe("review-console", () => {
  it("migrate on a migrated database applies nothing", () => {
    const result = cli(["migrate"]);
    expect(result, result.out).toMatchObject({ code: 0 });
    expect(result.stdout).toMatch(/^ok 0 applied, \d+ already applied$/m);
  }, 60_000);

  it("token add prints the token once, alone on the last line, and stores only its hash", async () => {
    const result = cli(["token", "add", "--name", "billing-worker", "--role", "consumer"]);
    expect(result, result.out).toMatchObject({ code: 0 });
    const lines = result.stdout.trimEnd().split("\n");
    const token = lines.at(-1)!;
    expect(token).toMatch(/^rct_[A-Za-z0-9_-]{43}$/);
    const rows = await sql(`SELECT token_hash, role::text FROM api_tokens WHERE name = 'billing-worker'`);
    expect(rows).toEqual([{ token_hash: hashToken(token), role: "consumer" }]);
    const stored = JSON.stringify(await sql(`SELECT * FROM api_tokens`));
    expect(stored).not.toContain(token);

    const bad = cli(["token", "add", "--name", "x", "--role", "root"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/argument 'root' is invalid/);
  }, 60_000);

  it("seed --log-entries continues the chain from its head: audit verify accepts it, and appends after it too", async () => {
    cli(["token", "add", "--name", "before-seed", "--role", "owner"]);
    const seeded = cli(["seed", "--log-entries", "3000"]);
    expect(seeded, seeded.out).toMatchObject({ code: 0 });
    expect(seeded.stdout).toMatch(/^ok 3000 synthetic decision-log entries in [\d.]+ s$/m);
    cli(["token", "add", "--name", "after-seed", "--role", "owner"]);
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM decision_log`);
    const ok = cli(["audit", "verify"]);
    expect(ok, ok.out).toMatchObject({ code: 0 });
    expect(ok.stdout.trim()).toBe(`ok ${n} entries`);
    // `at` rises with seq across the seeded entries and the appends around them.
    const disorder = await sql(
      `SELECT seq FROM (SELECT seq, at, lag(at) OVER (ORDER BY seq) AS previous FROM decision_log) AS l
        WHERE at <= previous`,
    );
    expect(disorder).toEqual([]);
  }, 120_000);

  it("audit verify prints ok <n> entries, and after tampering exits 1 naming the entry", async () => {
    cli(["token", "add", "--name", "a", "--role", "owner"]);
    cli(["token", "add", "--name", "b", "--role", "owner"]);
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM decision_log`);
    const ok = cli(["audit", "verify"]);
    expect(ok, ok.out).toMatchObject({ code: 0 });
    expect(ok.stdout.trim()).toBe(`ok ${n} entries`);

    // As a superuser behind the trigger's back, the way an attacker with database access would.
    await sql(`BEGIN;
      ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only;
      UPDATE decision_log SET reason = 'nothing to see' WHERE seq = 2;
      ALTER TABLE decision_log ENABLE TRIGGER decision_log_append_only;
      COMMIT;`);
    const broken = cli(["audit", "verify"]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("broken at entry 2: its content does not match its hash");
  }, 60_000);
});
