import { createHash, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { archivedHashOf, verifyArchiveText } from "@/lib/audit/archive-file";
import { db } from "@/lib/db/client";
import { type Checkpoint, signCheckpoint } from "./checkpoint";
import { type ChainVerdict, inLogSnapshot, verifyChain } from "./verify";

export type CheckpointResult = { ok: true; checkpoint: Checkpoint } | { ok: false; problem: string };

/**
 * Signs the log's current last entry, after verifying the whole chain on the same snapshot:
 * a checkpoint must never bless a log that is already broken. The signed checkpoint is also
 * stored in decision_log_checkpoints for the console's page; the copy that counts is the one
 * the caller keeps elsewhere.
 */
export async function createCheckpoint(connectionString: string, privateKey: KeyObject): Promise<CheckpointResult> {
  const { verdict, tip } = await inLogSnapshot(connectionString, verifyChain);
  if (!verdict.ok) {
    return {
      ok: false,
      problem: `the chain is broken at entry ${verdict.brokenSeq}: ${verdict.problem}; nothing signed`,
    };
  }
  if (!tip) return { ok: false, problem: "the decision log is empty; nothing to checkpoint" };
  const checkpoint = signCheckpoint(tip, privateKey);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    // Times as text: timestamptz keeps the entry's microseconds, which a JS Date would drop.
    await client.query(
      `INSERT INTO decision_log_checkpoints (seq, hash, at, signed_at, key_id, signature)
       VALUES ($1::bigint, $2, $3::timestamptz, $4::timestamptz, $5, $6)`,
      [
        String(checkpoint.seq),
        checkpoint.hash,
        checkpoint.at,
        checkpoint.signedAt,
        checkpoint.keyId,
        checkpoint.signature,
      ],
    );
  } finally {
    await client.end();
  }
  return { ok: true, checkpoint };
}

/** What the live log says about one checkpoint: null when it still holds that entry with that hash. */
function heldProblem(checkpoint: Checkpoint, stored: string | undefined, lastSeq: bigint): string | null {
  if (stored === checkpoint.hash) return null;
  if (stored === undefined) {
    return BigInt(checkpoint.seq) > lastSeq
      ? `the log ends at entry ${lastSeq}: entries up to ${checkpoint.seq} were removed after the checkpoint (truncated tail)`
      : `the log holds no entry ${checkpoint.seq} any more`;
  }
  return (
    `the log's entry ${checkpoint.seq} has hash ${stored.slice(0, 16)}…, the checkpoint ${checkpoint.hash.slice(0, 16)}…: ` +
    "the log was rewritten after the checkpoint"
  );
}

export interface CheckpointCheck {
  verdict: ChainVerdict;
  /** One per checkpoint, in the given order: null when the log (or its archive) still holds its entry. */
  problems: (string | null)[];
  /** One per checkpoint: the archive file that holds its entry, when `review-console archive` moved it there. */
  archivedIn: (string | null)[];
}

/** Where archived entries are looked up: the archive files' folder and the key they were signed with. */
export interface ArchiveLookup {
  dir: string;
  publicKey: KeyObject;
}

interface ArchivedMonthRow {
  month: string;
  firstSeq: string;
  lastSeq: string;
  lastHash: string;
  fileName: string;
  fileSha256: string;
}

/**
 * A checkpoint of an entry that `review-console archive` moved out of the log: held when the
 * month's record (decision_log_archives) ends with it, or else when the month's file, the very
 * one archive wrote (its SHA-256 as recorded), verifies on its own and holds the entry with the
 * signed hash. A file that is not in `lookup.dir` is a problem naming it: nothing is taken on trust.
 */
async function archivedProblem(
  checkpoint: Checkpoint,
  month: ArchivedMonthRow,
  lookup: ArchiveLookup | undefined,
): Promise<string | null> {
  const where = `entry ${checkpoint.seq} was archived to ${month.fileName} (${month.month})`;
  if (String(checkpoint.seq) === month.lastSeq) {
    return month.lastHash === checkpoint.hash
      ? null
      : `${where}, whose recorded last hash is ${month.lastHash.slice(0, 16)}…, the checkpoint ${checkpoint.hash.slice(0, 16)}…: the log was rewritten after the checkpoint`;
  }
  if (!lookup) return `${where}: give the archive folder (--archive-dir) to check it there`;
  const file = path.join(lookup.dir, month.fileName);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return `${where}, which is not readable in ${lookup.dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}): give the folder that holds it (--archive-dir)`;
  }
  if (createHash("sha256").update(text, "utf8").digest("hex") !== month.fileSha256) {
    return `${where}: ${file} is not the file archive wrote (its SHA-256 differs from the one recorded)`;
  }
  const verdict = verifyArchiveText(text, lookup.publicKey);
  if (!verdict.ok) return `${where}: ${file} is broken at line ${verdict.line}: ${verdict.problem}`;
  const hash = archivedHashOf(text, checkpoint.seq);
  if (hash === null) return `${where}, but ${file} does not hold it`;
  return hash === checkpoint.hash
    ? null
    : `${where}, where its hash is ${hash.slice(0, 16)}…, the checkpoint ${checkpoint.hash.slice(0, 16)}…: the log was rewritten after the checkpoint`;
}

/**
 * Verifies the chain and, on the same snapshot, that the log still holds each checkpoint's entry
 * with the signed hash. Signatures are the caller's business (checked before, without the database).
 */
export async function checkCheckpointsAgainstLog(
  connectionString: string,
  checkpoints: Checkpoint[],
  archives?: ArchiveLookup,
): Promise<CheckpointCheck> {
  return inLogSnapshot(connectionString, async (client) => {
    const { verdict } = await verifyChain(client);
    const { rows } = await client.query<{ seq: string; hash: string }>(
      `SELECT seq::text AS seq, hash FROM decision_log WHERE seq = ANY($1::bigint[])`,
      [checkpoints.map((c) => String(c.seq))],
    );
    const { rows: top } = await client.query<{ last: string }>(
      `SELECT coalesce(max(seq), 0)::text AS last FROM decision_log`,
    );
    const { rows: months } = await client.query<ArchivedMonthRow>(
      `SELECT month, first_seq::text AS "firstSeq", last_seq::text AS "lastSeq", last_hash AS "lastHash",
              file_name AS "fileName", file_sha256 AS "fileSha256"
         FROM decision_log_archives ORDER BY first_seq`,
    );
    const stored = new Map(rows.map((r) => [r.seq, r.hash]));
    const lastSeq = BigInt(top[0]?.last ?? "0");
    const problems: (string | null)[] = [];
    const archivedIn: (string | null)[] = [];
    for (const c of checkpoints) {
      const seq = BigInt(c.seq);
      const month = months.find((m) => BigInt(m.firstSeq) <= seq && seq <= BigInt(m.lastSeq));
      if (month && !stored.has(String(c.seq))) {
        problems.push(await archivedProblem(c, month, archives));
        archivedIn.push(month.fileName);
        continue;
      }
      problems.push(heldProblem(c, stored.get(String(c.seq)), lastSeq));
      archivedIn.push(null);
    }
    return { verdict, problems, archivedIn };
  });
}

export interface StoredCheckpoint {
  seq: string;
  hash: string;
  at: string;
  signedAt: string;
  keyId: string;
  /** Whether the live log still holds entry `seq` with exactly `hash`. */
  held: boolean;
  /** The log's last seq now, to tell a truncated tail from a rewritten entry. */
  lastSeq: string;
}

/**
 * The most recently stored checkpoint and whether the live log still holds its entry, for the
 * decision-log page. Its signature is not checked here (the console has no trusted public key);
 * `review-console audit verify --checkpoint` does that with the key kept outside the database.
 */
export async function latestStoredCheckpoint(): Promise<StoredCheckpoint | null> {
  const rows = await db().$queryRaw<StoredCheckpoint[]>`
    SELECT c.seq::text AS "seq", c.hash AS "hash",
           to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "at",
           to_char(c.signed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "signedAt",
           c.key_id AS "keyId",
           EXISTS (SELECT 1 FROM decision_log l WHERE l.seq = c.seq AND l.hash = c.hash) AS "held",
           (SELECT coalesce(max(seq), 0) FROM decision_log)::text AS "lastSeq"
      FROM decision_log_checkpoints c
     ORDER BY c.id DESC
     LIMIT 1`;
  return rows[0] ?? null;
}
