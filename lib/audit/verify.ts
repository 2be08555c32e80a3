import { createHash } from "node:crypto";
import pg from "pg";
import type { AuditRow } from "./list";

export type ChainVerdict =
  { ok: true; entries: number } | { ok: false; entries: number; brokenSeq: string; problem: string };

/** The last entry of a verified chain: what a checkpoint signs. `at` as the hash renders it. */
export interface ChainTip {
  seq: bigint;
  hash: string;
  at: string;
}

export const GENESIS_HASH = "0".repeat(64);

/** Entries per keyset query: each is one short round trip, and memory stays flat for any log size. */
export const VERIFY_BATCH = 5000;

export const PROBLEMS = {
  hole: "entries before it are missing",
  link: "its link to the previous entry is broken",
  content: "its content does not match its hash",
  tail: "entries at the end of the log are missing",
  head: "the chain head does not match the last entry",
  noHead: "the chain head is missing",
} as const;

/**
 * One entry as stored, in the text forms the hash is computed from: the row's columns as
 * AUDIT_COLUMNS reads them (`reviewId` is `review_id::text`, the canonical lower-case form;
 * `details` is `details::text`, jsonb's canonical text, the very string the SQL function hashes),
 * but `seq` as text and, for `at`, `atEpoch`: `extract(epoch FROM at)::text`, exact seconds with
 * six decimals, independent of any setting.
 */
export type EntryFields = Omit<AuditRow, "seq" | "at" | "hash"> & { seq: string; atEpoch: string };

/**
 * PostgreSQL's quote_nullable(): NULL becomes the word NULL; otherwise the value in single
 * quotes with quotes and backslashes doubled, and an E prefix when it holds a backslash. This is
 * what keeps NULL and '' (and 'NULL') apart in the hashed text.
 */
export function quoteNullable(value: string | null): string {
  if (value === null) return "NULL";
  const quoted = `'${value.replace(/(['\\])/g, "$1$1")}'`;
  return value.includes("\\") ? `E${quoted}` : quoted;
}

const pad = (n: number | bigint, width: number) => String(n).padStart(width, "0");

/**
 * `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` from the epoch text, e.g.
 * "1796036400.123456" -> "2026-12-01T09:00:00.123456Z". Computed here rather than asked of the
 * database, so no session setting (TimeZone, DateStyle) can change what is hashed. Years after
 * 9999 get more digits, as to_char gives them; years before 1 are not supported (no append has one).
 */
export function formatEntryTime(epoch: string): string {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(epoch);
  if (!match) throw new Error(`unexpected epoch text: ${epoch}`);
  const [, sign, whole, fraction = ""] = match;
  const magnitude = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
  const micros = sign ? -magnitude : magnitude;
  // Floor division, so times before 1970 split into whole seconds and a positive fraction.
  let seconds = micros / 1_000_000n;
  let rest = micros % 1_000_000n;
  if (rest < 0n) {
    seconds -= 1n;
    rest += 1_000_000n;
  }
  const date = new Date(Number(seconds) * 1000);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(year) || year < 1) throw new Error(`entry time out of range: ${epoch}`);
  return (
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}` +
    `.${pad(rest, 6)}Z`
  );
}

/**
 * The SQL function decision_log_entry_hash() (migration 20261130000000_init), redone in Node:
 * SHA-256 of concat_ws('|', prev_hash, seq, time, quote_nullable(each content column)) in UTF-8.
 * Verification must not ask the database for this: whoever can replace that function (or
 * disable the triggers) could make it agree with anything.
 */
export function entryHash(entry: EntryFields): string {
  const text = [
    entry.prevHash,
    entry.seq,
    formatEntryTime(entry.atEpoch),
    quoteNullable(entry.actor),
    quoteNullable(entry.actorRole),
    quoteNullable(entry.action),
    quoteNullable(entry.reviewId),
    quoteNullable(entry.effectKey),
    quoteNullable(entry.reason),
    quoteNullable(entry.details),
  ].join("|");
  return createHash("sha256").update(text, "utf8").digest("hex");
}

type EntryRow = EntryFields & { hash: string };

/** The entry's hash, or null when its time cannot be rendered (only a hand-edited `at` can be so). */
function hashOfRow(row: EntryRow): string | null {
  try {
    return entryHash(row);
  } catch {
    return null;
  }
}

/**
 * Runs `fn` on one REPEATABLE READ READ ONLY snapshot: the batches, the count and the head (and a
 * checkpoint's entries) all see the log as of one moment, whatever is appended meanwhile.
 */
export async function inLogSnapshot<T>(connectionString: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    return await fn(client);
  } finally {
    await client.query("COMMIT").catch(() => {});
    await client.end();
  }
}

/**
 * Walks the whole log in seq order in keyset batches, recomputing every hash in this process,
 * and checks each link, the numbering (a deleted entry leaves a hole) and the head (a deleted
 * tail). Call inside inLogSnapshot(). Returns the verdict and, when intact, the last entry.
 */
export async function verifyChain(client: pg.Client): Promise<{ verdict: ChainVerdict; tip: ChainTip | null }> {
  // After `review-console archive` the live log starts after the last archived entry: its seq
  // and hash are the start (each archived month's file verifies on its own: `audit verify --file`).
  const { rows: archived } = await client.query<{ lastSeq: string; lastHash: string }>(
    `SELECT last_seq::text AS "lastSeq", last_hash AS "lastHash" FROM decision_log_archives ORDER BY last_seq DESC LIMIT 1`,
  );
  let previousSeq = archived[0] ? BigInt(archived[0].lastSeq) : 0n;
  let previousHash = archived[0]?.lastHash ?? GENESIS_HASH;
  let tip: ChainTip | null = null;
  let entries = 0;
  const broken = async (seq: string, problem: string) => {
    // The count of every entry, as before: the first break stops the walk, not the count.
    const { rows } = await client.query<{ n: string }>("SELECT count(*)::text AS n FROM decision_log");
    return { verdict: { ok: false as const, entries: Number(rows[0]?.n ?? 0), brokenSeq: seq, problem }, tip: null };
  };

  for (;;) {
    // ORDER BY the column, not the text alias `seq` (which would sort entry 10 before entry 2).
    const { rows } = await client.query<EntryRow>(
      `SELECT seq::text AS seq, prev_hash AS "prevHash", hash, extract(epoch FROM at)::text AS "atEpoch", actor,
              actor_role AS "actorRole", action, review_id::text AS "reviewId", effect_key AS "effectKey", reason,
              details::text AS details
         FROM decision_log WHERE seq > $1 ORDER BY decision_log.seq LIMIT $2`,
      [previousSeq.toString(), VERIFY_BATCH],
    );
    for (const row of rows) {
      const seq = BigInt(row.seq);
      if (seq !== previousSeq + 1n) return broken(row.seq, PROBLEMS.hole);
      if (row.prevHash !== previousHash) return broken(row.seq, PROBLEMS.link);
      const expected = hashOfRow(row);
      if (expected === null || row.hash !== expected) return broken(row.seq, PROBLEMS.content);
      previousSeq = seq;
      previousHash = row.hash;
      tip = { seq, hash: row.hash, at: formatEntryTime(row.atEpoch) };
      entries++;
    }
    if (rows.length < VERIFY_BATCH) break;
  }

  const { rows: headRows } = await client.query<{ lastSeq: string; lastHash: string }>(
    `SELECT last_seq::text AS "lastSeq", last_hash AS "lastHash" FROM decision_log_head WHERE id = 1`,
  );
  const head = headRows[0];
  if (!head) return { verdict: { ok: false, entries, brokenSeq: "head", problem: PROBLEMS.noHead }, tip: null };
  // The head is written in the same statement as the entries it points to, so in one snapshot
  // it names exactly the last entry; one further on means the tail was deleted.
  if (BigInt(head.lastSeq) > previousSeq) {
    return { verdict: { ok: false, entries, brokenSeq: head.lastSeq, problem: PROBLEMS.tail }, tip: null };
  }
  if (BigInt(head.lastSeq) !== previousSeq || head.lastHash !== previousHash) {
    return { verdict: { ok: false, entries, brokenSeq: "head", problem: PROBLEMS.head }, tip: null };
  }
  return { verdict: { ok: true, entries }, tip };
}

/**
 * Verifies the decision log's hash chain. Trusts nothing the database computes about the chain:
 * every hash is recomputed here from the stored fields.
 */
export async function verifyDecisionLog(connectionString: string): Promise<ChainVerdict> {
  return inLogSnapshot(connectionString, async (client) => (await verifyChain(client)).verdict);
}
