/**
 * `review-console archive` (docs/decisions/0023-retention-and-archive.md): the decision log,
 * partitioned by month, gives up its oldest months to NDJSON files that verify on their own
 * (`audit verify --file`), and the live chain continues from them and still verifies. The CLI runs
 * as an operator runs it: a child process, judged by its output and exit code.
 *
 * The log spanning several months is written by the seeding path (`seed --log-entries`: a valid
 * chain with `at` spread over the past, streamed as the tables' owner), the only way to entries
 * older than the clock; every later append goes through the chain trigger.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadPrivateKey,
  loadPublicKey,
  signCheckpoint,
  formatEntryTime,
  verifyDecisionLog,
  verifyArchiveText,
} from "@/lib/audit";
import { spanOf, writeMonthFile } from "@/lib/retention";
import { seedSyntheticLogEntries } from "@/testing/seed/synthetic-log";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";

const CLI_TIMEOUT = 120_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Each describe has its own database (the seed continues after the last entry's time). */
let database: { current: { url: string } };

const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(database.current.url, args, { MIGRATION_DATABASE_URL: undefined, ...env });

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let dir: string;
let keys: { privateKey: string; publicKey: string };
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "rc-archive-"));
  keys = { privateKey: path.join(dir, "keys", "private.pem"), publicKey: path.join(dir, "keys", "public.pem") };
  // keygen needs no database.
  const made = runCli("postgresql://unused@127.0.0.1:1/none", ["audit", "keygen", "--out", path.join(dir, "keys")]);
  expect(made, made.out).toMatchObject({ code: 0 });
}, CLI_TIMEOUT);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const archiveDir = () => path.join(dir, "files");
const archive = (before: string, env: Record<string, string | undefined> = {}) =>
  cli(["archive", "--before", before, "--dir", archiveDir(), "--key", keys.privateKey], env);
const verifyFile = (file: string) => cli(["audit", "verify", "--file", file, "--key", keys.publicKey]);
const fileOf = (month: string) => path.join(archiveDir(), `decision-log-${month}.ndjson`);

/** Entries per month (YYYY-MM) with their seq range, from the live log. */
async function months(): Promise<{ month: string; n: number; first: number; last: number; part: string }[]> {
  return sql(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n, min(seq)::int AS first,
            max(seq)::int AS last, min(tableoid::regclass::text) AS part
       FROM decision_log GROUP BY 1 ORDER BY 1`,
  );
}

async function append(n: number, tag: string): Promise<void> {
  await sql(
    `INSERT INTO decision_log (actor, action, reason, details)
     SELECT $1, 'review.note', 'note ' || i, jsonb_build_object('i', i) FROM generate_series(1, $2::int) i`,
    [tag, n],
  );
}

const currentMonth = () => new Date().toISOString().slice(0, 7);

describe("the decision log partitioned by month", () => {
  const own = setupTestDatabase();
  beforeAll(() => {
    database = own;
  });
  it(
    "routes appends to their month's partition and chains across partitions without a gap",
    async () => {
      // Four entries 32 days apart: the last is in an earlier month than today.
      await seedSyntheticLogEntries(database.current.url, 4, { spanMs: 4 * 32 * DAY_MS });
      await append(3, "after-the-seed");
      const spans = await months();
      expect(spans.length, JSON.stringify(spans)).toBeGreaterThanOrEqual(3);
      for (const span of spans) {
        expect(span.part, "each month's entries are in that month's partition").toBe(
          `decision_log_${span.month.replace("-", "_")}`,
        );
      }
      const now = spans.at(-1)!;
      expect(now.month).toBe(currentMonth());
      // The first append of this month chained to the last entry of an earlier month's partition.
      expect(now.first).toBe(spans.at(-2)!.last + 1);
      const { rows } = { rows: await sql(`SELECT seq::int AS seq FROM decision_log ORDER BY seq`) };
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      expect(await verifyDecisionLog(database.current.url)).toEqual({ ok: true, entries: rows.length });
    },
    CLI_TIMEOUT,
  );

  it("writes entries the chain trigger hashed, awkward values included, to a file that verifies", async () => {
    // The seeded months were hashed in Node; these by the SQL function: the file's check must agree.
    await sql(
      `INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details) VALUES
         ('o''brien@example.test', NULL, 'review.note', '7d3c1a52-0b7e-4d4a-9a43-1f2f0b7f6c11', '', E'back\\slash', '{"b": [1, 2.50, "ü"], "a": null}'),
         ('grüße 🙂', 'owner', 'review.note', NULL, NULL, 'NULL', '"just a string"'),
         ('tab	and
newline', '', 'review.note', NULL, 'k', NULL, NULL)`,
    );
    const month = currentMonth();
    const partition = { month, table: `decision_log_${month.replace("-", "_")}` };
    const file = path.join(dir, "current-month.ndjson");
    const [previous] = await sql(
      `SELECT (min(seq) - 1)::int AS "lastSeq", (SELECT prev_hash FROM decision_log WHERE seq = min(l.seq)) AS "lastHash"
         FROM ${partition.table} l`,
    );
    await withClient(database.current.url, async (c) => {
      const span = await spanOf(c, partition.table);
      const privateKey = loadPrivateKey(await readFile(keys.privateKey, "utf8"));
      await writeMonthFile(c, partition, span, previous, file, privateKey);
    });
    const verdict = verifyArchiveText(
      await readFile(file, "utf8"),
      loadPublicKey(await readFile(keys.publicKey, "utf8")),
    );
    expect(verdict).toMatchObject({ ok: true });
  });

  it.each([
    ["UPDATE", (p: string) => `UPDATE ${p} SET actor = 'someone else'`],
    ["DELETE", (p: string) => `DELETE FROM ${p}`],
    ["TRUNCATE", (p: string) => `TRUNCATE ${p}`],
  ])("refuses %s on a partition named directly", async (operation, statement) => {
    const partition = `decision_log_${currentMonth().replace("-", "_")}`;
    const error = await sql(statement(partition)).then(
      () => null,
      (e: { code?: string; message: string }) => e,
    );
    expect(error?.code, error?.message).toBe("42501");
    expect(error?.message).toBe(`decision_log is append-only: ${operation} refused`);
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("refuses a caller's time in another month rather than route the entry wrongly", async () => {
    const error = await sql(
      `INSERT INTO decision_log (at, actor, action) VALUES ('2001-01-01T00:00:00Z', 'f', 'x')`,
    ).then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(error?.code).toBe("RC001");
  });
});

describe("review-console archive", () => {
  const own = setupTestDatabase();
  let before: { month: string; n: number; first: number; last: number }[];

  beforeAll(async () => {
    database = own;
    // A few hundred entries spread over the last ~100 days: at least three full months before this one.
    await seedSyntheticLogEntries(database.current.url, 400, { spanMs: 100 * DAY_MS });
    await append(5, "live");
    before = await months();
  }, CLI_TIMEOUT);

  it(
    "refuses without a key, naming the setting, and refuses the current month's successor",
    () => {
      const noKey = cli(["archive", "--before", before[1]!.month, "--dir", archiveDir()], {
        CHECKPOINT_PRIVATE_KEY_FILE: undefined,
      });
      expect(noKey.code).toBe(1);
      expect(noKey.out).toContain("CHECKPOINT_PRIVATE_KEY_FILE");
      const [y, m] = currentMonth().split("-").map(Number) as [number, number];
      const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
      const future = archive(next);
      expect(future.code).toBe(1);
      expect(future.out).toContain("the current month is still being written");
    },
    CLI_TIMEOUT,
  );

  it(
    "archives the oldest months to files that verify alone; the live chain verifies and goes on",
    async () => {
      expect(before.length, JSON.stringify(before)).toBeGreaterThanOrEqual(4);
      const [first, second, third] = before as [(typeof before)[0], (typeof before)[0], (typeof before)[0]];
      const totalBefore = before.reduce((n, s) => n + s.n, 0);

      const run = archive(third.month);
      expect(run, run.out).toMatchObject({ code: 0 });
      expect(run.stdout).toContain(`ok 2 months archived before ${third.month}`);

      for (const span of [first, second]) {
        const checked = verifyFile(fileOf(span.month));
        expect(checked, checked.out).toMatchObject({ code: 0 });
        expect(checked.stdout.split("\n")[0]).toBe(`ok ${span.n} entries`);
        expect(await sql(`SELECT to_regclass($1) AS t`, [`decision_log_${span.month.replace("-", "_")}`])).toEqual([
          { t: null },
        ]);
      }
      // The second file starts where the first ends.
      const firstLines = (await readFile(fileOf(first.month), "utf8")).trim().split("\n");
      const secondHeader = JSON.parse((await readFile(fileOf(second.month), "utf8")).split("\n")[0]!);
      expect(secondHeader).toMatchObject({ firstSeq: second.first, lastSeq: second.last, entries: second.n });
      expect(secondHeader.prevHash).toBe(JSON.parse(firstLines.at(-2)!).hash);
      expect(JSON.parse(firstLines[0]!).prevHash).toBe("0".repeat(64));

      // The live chain: what is left, from the last archived hash on.
      const live = totalBefore - first.n - second.n;
      const verified = cli(["audit", "verify"]);
      expect(verified, verified.out).toMatchObject({ code: 0 });
      expect(verified.stdout.trim()).toBe(`ok ${live} entries`);

      // Appends go on, numbered after everything archived and live.
      await append(3, "after-archive");
      const [{ last }] = await sql(`SELECT max(seq)::int AS last FROM decision_log`);
      expect(last).toBe(totalBefore + 3);
      expect(await verifyDecisionLog(database.current.url)).toEqual({ ok: true, entries: live + 3 });
      expect(
        await sql(
          `SELECT month, first_seq::int, last_seq::int, entries::int FROM decision_log_archives ORDER BY month`,
        ),
      ).toEqual([
        { month: first.month, first_seq: first.first, last_seq: first.last, entries: first.n },
        { month: second.month, first_seq: second.first, last_seq: second.last, entries: second.n },
      ]);

      // Running it again archives nothing more.
      const again = archive(third.month);
      expect(again, again.out).toMatchObject({ code: 0 });
      expect(again.stdout).toContain(`ok 0 months archived before ${third.month}`);
    },
    CLI_TIMEOUT * 2,
  );

  it(
    "names the changed line of an archive file, and a removed one",
    async () => {
      const file = fileOf(before[0]!.month);
      const lines = (await readFile(file, "utf8")).split("\n");

      const changed = [...lines];
      const entry = JSON.parse(changed[4]!);
      changed[4] = JSON.stringify({ ...entry, actor: "someone-else@example.test" });
      const changedFile = path.join(dir, "changed.ndjson");
      await writeFile(changedFile, changed.join("\n"));
      const changedRun = verifyFile(changedFile);
      expect(changedRun.code).toBe(1);
      expect(changedRun.stdout.trim()).toBe(
        `broken at line 5: entry ${entry.seq}: its content does not match its hash`,
      );

      const removed = lines.filter((_, i) => i !== 2);
      const removedFile = path.join(dir, "removed.ndjson");
      await writeFile(removedFile, removed.join("\n"));
      const removedRun = verifyFile(removedFile);
      expect(removedRun.code).toBe(1);
      expect(removedRun.stdout).toMatch(/^broken at line 3: entry \d+ follows entry \d+: entries between are missing/);

      // The signature covers the last entry: a re-signed-looking checkpoint line fails too.
      const forged = [...lines];
      const last = lines.length - 2; // the final line is followed by a newline
      forged[last] = JSON.stringify({ ...JSON.parse(lines[last]!), signedAt: "2020-01-01T00:00:00.000Z" });
      const forgedFile = path.join(dir, "forged.ndjson");
      await writeFile(forgedFile, forged.join("\n"));
      const forgedRun = verifyFile(forgedFile);
      expect(forgedRun.code).toBe(1);
      expect(forgedRun.stdout).toContain(`broken at line ${last + 1}: the checkpoint: its signature does not verify`);

      // The original still verifies, and so does the live log.
      expect(verifyFile(file)).toMatchObject({ code: 0 });
      expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
    },
    CLI_TIMEOUT,
  );

  it(
    "can be run again after a crash between writing a file and dropping its month",
    async () => {
      const month = before[2]!;
      // A reader holding the log keeps DETACH waiting past its lock timeout: the file is written,
      // the month stays live, as after a crash at that point.
      await withClient(database.current.url, async (reader) => {
        await reader.query("BEGIN");
        await reader.query("LOCK TABLE decision_log IN ACCESS SHARE MODE");
        const blocked = archive(before[3]!.month);
        await reader.query("ROLLBACK");
        expect(blocked.code, blocked.out).toBe(1);
        expect(blocked.out).toContain("lock timeout");
      });
      expect(verifyFile(fileOf(month.month))).toMatchObject({ code: 0 });
      expect((await months()).map((s) => s.month)).toContain(month.month);

      const retried = archive(before[3]!.month);
      expect(retried, retried.out).toMatchObject({ code: 0 });
      expect(retried.stdout).toContain(`ok 1 months archived`);
      const checked = verifyFile(fileOf(month.month));
      expect(checked.stdout.split("\n")[0]).toBe(`ok ${month.n} entries`);
      expect((await months()).map((s) => s.month)).not.toContain(month.month);
      const verified = cli(["audit", "verify"]);
      expect(verified, verified.out).toMatchObject({ code: 0 });
    },
    CLI_TIMEOUT * 2,
  );
});

describe("review-console archive of months in decision_log_default, and checkpoints of archived entries", () => {
  const own = setupTestDatabase();
  const ownDir = () => path.join(dir, "stray");
  let before: { month: string; n: number; first: number; last: number; part: string }[];

  /** A signed checkpoint line of entry `seq` (its hash replaced by `hash` when given: a forged one). */
  async function checkpointOf(seq: number, hash?: string): Promise<string> {
    const [row] = await sql<{ hash: string; epoch: string }>(
      `SELECT hash, extract(epoch FROM at)::text AS epoch FROM decision_log WHERE seq = $1`,
      [seq],
    );
    const privateKey = loadPrivateKey(await readFile(keys.privateKey, "utf8"));
    const tip = { seq: BigInt(seq), hash: hash ?? row!.hash, at: formatEntryTime(row!.epoch) };
    return JSON.stringify(signCheckpoint(tip, privateKey));
  }

  const verifyCheckpoints = async (name: string, lines: string[], archiveDir: string) => {
    const file = path.join(dir, `${name}.checkpoints`);
    await writeFile(file, `${lines.join("\n")}\n`);
    return cli(["audit", "verify", "--checkpoint", file, "--key", keys.publicKey, "--archive-dir", archiveDir]);
  };

  beforeAll(async () => {
    database = own;
    await seedSyntheticLogEntries(database.current.url, 400, { spanMs: 100 * DAY_MS });
    await append(5, "live");
    before = await months();
    // The two oldest months as if appended while they had no partition: their entries, unchanged,
    // in decision_log_default, their partitions gone.
    await withClient(database.current.url, async (c) => {
      await c.query("BEGIN");
      await c.query("ALTER TABLE decision_log DISABLE TRIGGER USER");
      for (const { part } of before.slice(0, 2)) {
        await c.query(`ALTER TABLE decision_log DETACH PARTITION ${part}`);
        await c.query(`INSERT INTO decision_log_default SELECT * FROM ${part}`);
        await c.query(`DROP TABLE ${part}`);
      }
      await c.query("ALTER TABLE decision_log ENABLE TRIGGER USER");
      await c.query("COMMIT");
    });
  }, CLI_TIMEOUT);

  it(
    "moves each month out of decision_log_default into a partition of its own, then archives it",
    async () => {
      expect(before.length, JSON.stringify(before)).toBeGreaterThanOrEqual(4);
      const [first, second, third] = before as [(typeof before)[0], (typeof before)[0], (typeof before)[0]];
      expect((await months()).slice(0, 2).map((m) => m.part)).toEqual(["decision_log_default", "decision_log_default"]);
      const total = before.reduce((n, s) => n + s.n, 0);
      // Checkpoints signed while the entries were live: one inside the oldest month, its last
      // entry, and the live log's last entry.
      const held = [
        await checkpointOf(first.first + 3),
        await checkpointOf(first.last),
        await checkpointOf(before.at(-1)!.last),
      ];
      const forged = await checkpointOf(second.first + 2, "f".repeat(64));

      const run = cli(["archive", "--before", third.month, "--dir", ownDir(), "--key", keys.privateKey]);
      expect(run, run.out).toMatchObject({ code: 0 });
      for (const span of [first, second]) {
        expect(run.stdout).toContain(`${span.month}: ${span.n} entries moved from decision_log_default`);
        const checked = verifyFile(path.join(ownDir(), `decision-log-${span.month}.ndjson`));
        expect(checked, checked.out).toMatchObject({ code: 0 });
        expect(checked.stdout.split("\n")[0]).toBe(`ok ${span.n} entries`);
      }
      expect(run.stdout).toContain(`ok 2 months archived before ${third.month}`);
      expect(await sql(`SELECT count(*)::int AS n FROM decision_log_default`)).toEqual([{ n: 0 }]);
      const verified = cli(["audit", "verify"]);
      expect(verified, verified.out).toMatchObject({ code: 0 });
      expect(verified.stdout.trim()).toBe(`ok ${total - first.n - second.n} entries`);
      // The moved partitions were append-only like any other (until archive dropped them), and
      // appends go on.
      await append(2, "after-move");
      expect(await verifyDecisionLog(database.current.url)).toEqual({
        ok: true,
        entries: total - first.n - second.n + 2,
      });

      // `audit verify --checkpoint`: the archived entries are found in their files.
      const ok = await verifyCheckpoints("held", held, ownDir());
      expect(ok, ok.out).toMatchObject({ code: 0 });
      expect(ok.stdout).toContain("(3 checkpoints, all held, 2 of them in archive files)");

      // Without the files they are not taken on trust: the one inside the month names its file.
      const empty = path.join(dir, "no-archives");
      const missing = await verifyCheckpoints("missing", held.slice(0, 1), empty);
      expect(missing.code, missing.out).toBe(1);
      expect(missing.stdout).toContain(`checkpoint FAILED: entry ${first.first + 3} `);
      expect(missing.stdout).toContain(
        `was archived to decision-log-${first.month}.ndjson (${first.month}), which is not readable in ${empty}`,
      );
      // The month's last entry is checked against the archive's record without its file.
      const last = await verifyCheckpoints("last", held.slice(1, 2), empty);
      expect(last, last.out).toMatchObject({ code: 0 });

      // A checkpoint whose hash the archive does not hold fails, as it would on the live log.
      const rewritten = await verifyCheckpoints("rewritten", [forged], ownDir());
      expect(rewritten.code, rewritten.out).toBe(1);
      expect(rewritten.stdout).toContain(`was archived to decision-log-${second.month}.ndjson`);
      expect(rewritten.stdout).toContain("the log was rewritten after the checkpoint");

      // An archive file changed after archive wrote it is not the file on record.
      const file = path.join(ownDir(), `decision-log-${first.month}.ndjson`);
      const text = await readFile(file, "utf8");
      await writeFile(file, text.replace(/"reason":"([^"]*)"/, '"reason":"$1 (edited)"'));
      const edited = await verifyCheckpoints("edited", held.slice(0, 1), ownDir());
      expect(edited.code, edited.out).toBe(1);
      expect(edited.stdout).toContain("is not the file archive wrote");
    },
    CLI_TIMEOUT * 3,
  );
});
