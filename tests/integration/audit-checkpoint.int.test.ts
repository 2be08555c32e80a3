/**
 * Signed checkpoints: what the database owner can do to the log unseen by `audit verify` alone
 * (rewrite an entry and recompute every hash after it and the head; delete the tail and reset
 * the head), and how a checkpoint line kept outside the database catches it. The CLI runs as an
 * operator runs it: a child process against DATABASE_URL, judged by its output and exit code.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckpointStatus } from "@/components/audit/checkpoint-status";
import { type Checkpoint, parseCheckpoints, latestStoredCheckpoint } from "@/lib/audit";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const CLI_TIMEOUT = 120_000;

const cli = (args: string[]) => runCli(database.current.url, args);

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let dir: string;
let keys: { privateKey: string; publicKey: string };
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "rc-checkpoint-"));
  keys = { privateKey: path.join(dir, "keys", "private.pem"), publicKey: path.join(dir, "keys", "public.pem") };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function append(n: number, tag: string): Promise<void> {
  await sql(
    `INSERT INTO decision_log (actor, action, reason, details)
     SELECT 'owner@example.test', 'review.note', $1 || ' ' || i, jsonb_build_object('i', i)
       FROM generate_series(1, $2::int) i`,
    [tag, n],
  );
}

async function lastSeq(): Promise<number> {
  const [{ last }] = await sql(`SELECT coalesce(max(seq), 0)::int AS last FROM decision_log`);
  return last;
}

/** `audit checkpoint`: one JSON line on stdout, kept in a file as an operator would keep it. */
async function checkpoint(name: string): Promise<{ file: string; checkpoint: Checkpoint; line: string }> {
  const result = cli(["audit", "checkpoint", "--key", keys.privateKey]);
  expect(result, result.out).toMatchObject({ code: 0 });
  const lines = result.stdout.split("\n").filter(Boolean);
  expect(lines, "exactly one line on stdout").toHaveLength(1);
  const file = path.join(dir, `${name}.jsonl`);
  await writeFile(file, `${lines[0]}\n`);
  return { file, checkpoint: parseCheckpoints(lines[0]!)[0]!, line: lines[0]! };
}

const verify = (file: string) => cli(["audit", "verify", "--checkpoint", file, "--key", keys.publicKey]);

/**
 * The owner, behind the triggers' back, in one transaction: `change` edits the log, then every
 * entry from `from` on is re-linked and re-hashed with the database's own function, and the head
 * is set to the (new) last entry. Afterwards the chain is internally perfect.
 */
async function ownerRewrites(change: string, from: number): Promise<void> {
  await withClient(database.current.url, async (c) => {
    await c.query("BEGIN");
    await c.query(`ALTER TABLE decision_log DISABLE TRIGGER USER`);
    await c.query(`ALTER TABLE decision_log_head DISABLE TRIGGER USER`);
    await c.query(change);
    await c.query(
      `DO $$
       DECLARE s bigint;
       BEGIN
         FOR s IN SELECT seq FROM decision_log WHERE seq >= ${from} ORDER BY seq LOOP
           UPDATE decision_log d
              SET prev_hash = coalesce((SELECT hash FROM decision_log WHERE seq = s - 1), repeat('0', 64))
            WHERE d.seq = s;
           UPDATE decision_log d
              SET hash = decision_log_entry_hash(prev_hash, seq, at, actor, actor_role, action, review_id,
                                                 effect_key, reason, details)
            WHERE d.seq = s;
         END LOOP;
       END $$`,
    );
    await c.query(
      `UPDATE decision_log_head h SET last_seq = t.seq, last_hash = t.hash
         FROM (SELECT seq, hash FROM decision_log ORDER BY seq DESC LIMIT 1) t WHERE h.id = 1`,
    );
    await c.query(`ALTER TABLE decision_log ENABLE TRIGGER USER`);
    await c.query(`ALTER TABLE decision_log_head ENABLE TRIGGER USER`);
    await c.query("COMMIT");
  });
}

describe("review-console audit keygen", () => {
  it(
    "writes an Ed25519 key pair, the private key readable by its owner only, and never overwrites one",
    async () => {
      const made = cli(["audit", "keygen", "--out", path.dirname(keys.privateKey)]);
      expect(made, made.out).toMatchObject({ code: 0 });
      expect(made.stdout).toMatch(/^key id [0-9a-f]{64}$/m);
      expect((await stat(keys.privateKey)).mode & 0o777).toBe(0o600);
      expect(await readFile(keys.privateKey, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      expect(await readFile(keys.publicKey, "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----/);

      const before = await readFile(keys.privateKey, "utf8");
      const again = cli(["audit", "keygen", "--out", path.dirname(keys.privateKey)]);
      expect(again.code).toBe(1);
      expect(again.out).toMatch(/private\.pem exists; not overwriting a key/);
      expect(await readFile(keys.privateKey, "utf8")).toBe(before);
    },
    CLI_TIMEOUT,
  );
});

describe("review-console audit checkpoint and verify --checkpoint", () => {
  it(
    "signs the last entry, stores it, and verifies against the live log; a tampered signature fails",
    async () => {
      await append(5, "first");
      const n = await lastSeq();
      const taken = await checkpoint("first");
      const [last] = await sql(
        `SELECT seq::int AS seq, hash, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
           FROM decision_log WHERE seq = $1`,
        [n],
      );
      expect(taken.checkpoint).toMatchObject({ seq: n, hash: last.hash, at: last.at });
      expect(taken.checkpoint.signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const stored = await sql(
        `SELECT seq::int AS seq, hash, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
                key_id, signature FROM decision_log_checkpoints`,
      );
      expect(stored).toEqual([
        {
          seq: n,
          hash: last.hash,
          at: last.at,
          key_id: taken.checkpoint.keyId,
          signature: taken.checkpoint.signature,
        },
      ]);

      const ok = verify(taken.file);
      expect(ok, ok.out).toMatchObject({ code: 0 });
      const lines = ok.stdout.trim().split("\n");
      expect(lines[0]).toBe(`ok ${n} entries`);
      expect(lines[1]).toMatch(new RegExp(`^checkpoint ok: entry ${n} .* is still in the log with the signed hash$`));

      // One character of the signature changed (still valid base64).
      const signature = taken.checkpoint.signature;
      const flipped = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
      const tamperedFile = path.join(dir, "tampered.jsonl");
      await writeFile(tamperedFile, `${JSON.stringify({ ...taken.checkpoint, signature: flipped })}\n`);
      const tampered = verify(tamperedFile);
      expect(tampered.code).toBe(1);
      expect(tampered.out).toContain(`checkpoint FAILED: entry ${n}`);
      expect(tampered.out).toContain("its signature does not verify with the given public key");

      // A checkpoint claiming another entry than the one signed.
      const movedFile = path.join(dir, "moved.jsonl");
      await writeFile(movedFile, `${JSON.stringify({ ...taken.checkpoint, seq: n - 1 })}\n`);
      expect(verify(movedFile).out).toContain("its signature does not verify");

      // The page shows it, held.
      const latest = await latestStoredCheckpoint();
      expect(latest).toMatchObject({ seq: String(n), hash: last.hash, at: last.at, held: true });
      const html = renderToStaticMarkup(CheckpointStatus({ checkpoint: latest }));
      expect(html).toContain(`entry ${n} is still in the log with the signed hash`);
      expect(html).toContain(taken.checkpoint.keyId);
    },
    CLI_TIMEOUT,
  );

  it(
    "catches an entry the owner rewrote with the whole chain and head recomputed, which plain verify cannot",
    async () => {
      await append(3, "before rewrite");
      const taken = await checkpoint("before-rewrite");
      const target = taken.checkpoint.seq - 2;
      await ownerRewrites(`UPDATE decision_log SET reason = 'nothing to see' WHERE seq = ${target}`, target);

      // The rewrite is internally consistent: the database's chain alone looks fine.
      const plain = cli(["audit", "verify"]);
      expect(plain, plain.out).toMatchObject({ code: 0 });
      expect(plain.stdout.trim()).toBe(`ok ${taken.checkpoint.seq} entries`);

      const caught = verify(taken.file);
      expect(caught.code).toBe(1);
      expect(caught.out).toContain(`checkpoint FAILED: entry ${taken.checkpoint.seq}`);
      expect(caught.out).toContain("the log was rewritten after the checkpoint");
      expect(caught.out).toContain(`the chain's own links are intact (${taken.checkpoint.seq} entries)`);

      const latest = await latestStoredCheckpoint();
      expect(latest).toMatchObject({ seq: String(taken.checkpoint.seq), held: false });
      expect(renderToStaticMarkup(CheckpointStatus({ checkpoint: latest }))).toContain(
        "no longer has the signed hash: the log was rewritten.",
      );
    },
    CLI_TIMEOUT,
  );

  it(
    "catches a tail the owner deleted with the head reset, which plain verify cannot",
    async () => {
      await append(4, "before truncation");
      const taken = await checkpoint("before-truncation");
      const keep = taken.checkpoint.seq - 3;
      await ownerRewrites(`DELETE FROM decision_log WHERE seq > ${keep}`, keep + 1);

      const plain = cli(["audit", "verify"]);
      expect(plain, plain.out).toMatchObject({ code: 0 });
      expect(plain.stdout.trim()).toBe(`ok ${keep} entries`);

      const caught = verify(taken.file);
      expect(caught.code).toBe(1);
      expect(caught.out).toContain(
        `the log ends at entry ${keep}: entries up to ${taken.checkpoint.seq} were removed after the checkpoint`,
      );
      expect(renderToStaticMarkup(CheckpointStatus({ checkpoint: await latestStoredCheckpoint() }))).toContain(
        `is gone: the log now ends at entry ${keep}.`,
      );

      // A new checkpoint of the truncated log verifies; a file holding both lines does not.
      const fresh = await checkpoint("after-truncation");
      expect(verify(fresh.file)).toMatchObject({ code: 0 });
      const both = path.join(dir, "both.jsonl");
      await writeFile(both, `${fresh.line}\n${taken.line}\n`);
      expect(verify(both).code).toBe(1);
    },
    CLI_TIMEOUT,
  );

  it(
    "refuses to sign a broken chain, and to check with another key",
    async () => {
      const good = await checkpoint("good");
      const other = path.join(dir, "other-keys");
      expect(cli(["audit", "keygen", "--out", other]).code).toBe(0);
      const wrongKey = cli(["audit", "verify", "--checkpoint", good.file, "--key", path.join(other, "public.pem")]);
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.out).toContain("not the given public key");

      // Broken in the plain way (no re-hash): nothing may be signed over it.
      await withClient(database.current.url, async (c) => {
        await c.query("BEGIN");
        await c.query(`ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only`);
        await c.query(`UPDATE decision_log SET reason = 'edited' WHERE seq = 1`);
        await c.query(`ALTER TABLE decision_log ENABLE TRIGGER decision_log_append_only`);
        await c.query("COMMIT");
      });
      const [{ n }] = await sql(`SELECT count(*)::int AS n FROM decision_log_checkpoints`);
      const refused = cli(["audit", "checkpoint", "--key", keys.privateKey]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.out).toContain(
        "the chain is broken at entry 1: its content does not match its hash; nothing signed",
      );
      expect(await sql(`SELECT count(*)::int AS n FROM decision_log_checkpoints`)).toEqual([{ n }]);
      const broken = verify(good.file);
      expect(broken.code).toBe(1);
      expect(broken.out).toContain("broken at entry 1: its content does not match its hash");
    },
    CLI_TIMEOUT,
  );
});
