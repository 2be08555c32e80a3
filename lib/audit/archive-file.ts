import { z } from "zod";
import { type Checkpoint, CHECKPOINT_KIND, checkpointSchema, signatureProblem } from "@/lib/audit/checkpoint";
import { entryHash, formatEntryTime } from "@/lib/audit/verify";
import type { KeyObject } from "node:crypto";

/**
 * The archive file of one month of the decision log (`review-console archive`,
 * docs/decisions/0023-retention-and-archive.md): NDJSON, one JSON object per line.
 *
 *   line 1      the header: the month, its first and last seq, the entry count, and `prevHash`,
 *               the hash of the entry before the first (the genesis hash for the first month);
 *   lines 2..   one entry each, with every field the hash covers, as the hash renders them
 *               (`at` with microseconds in UTC, `details` as jsonb's text), and its `prevHash`
 *               and `hash`;
 *   last line   a signed checkpoint of the last entry, exactly as `audit checkpoint` prints one.
 *
 * Pure: no database and no files here, so the file can be checked anywhere (`audit verify --file`).
 */

export const ARCHIVE_KIND = "review-console/decision-log-archive";

const HEX64 = /^[0-9a-f]{64}$/;

export const archiveHeaderSchema = z.strictObject({
  kind: z.literal(ARCHIVE_KIND),
  version: z.literal(1),
  month: z.string().regex(/^\d{4}-\d\d$/, "must be YYYY-MM"),
  firstSeq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  lastSeq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  entries: z.number().int().min(1),
  prevHash: z.string().regex(HEX64, "must be 64 lower-case hex digits"),
});
export type ArchiveHeader = z.infer<typeof archiveHeaderSchema>;

export const archiveEntrySchema = z.strictObject({
  seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  at: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, "must be an entry time with microseconds"),
  actor: z.string(),
  actorRole: z.string().nullable(),
  action: z.string(),
  reviewId: z.string().nullable(),
  effectKey: z.string().nullable(),
  reason: z.string().nullable(),
  /** jsonb's text of the details, the very string the hash covers (not re-serialized JSON). */
  details: z.string().nullable(),
  prevHash: z.string().regex(HEX64, "must be 64 lower-case hex digits"),
  hash: z.string().regex(HEX64, "must be 64 lower-case hex digits"),
});
export type ArchiveEntry = z.infer<typeof archiveEntrySchema>;

/** "2026-09-01T10:00:00.123456Z" -> "1788256800.123456", extract(epoch FROM at)::text's form. */
export function epochOfEntryTime(at: string): string {
  const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})Z$/.exec(at);
  if (!match) throw new Error(`not an entry time: ${at}`);
  const [, y, mo, d, h, mi, s, us] = match;
  const seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  return `${seconds}.${us}`;
}

/** The hash of an archived entry, by the verifier's own definition (lib/audit/verify.ts). */
export function archivedEntryHash(entry: ArchiveEntry): string {
  return entryHash({ ...entry, seq: String(entry.seq), atEpoch: epochOfEntryTime(entry.at) });
}

export const headerLine = (header: ArchiveHeader) => JSON.stringify(header);
export const entryLine = (entry: ArchiveEntry) =>
  JSON.stringify({
    seq: entry.seq,
    at: entry.at,
    actor: entry.actor,
    actorRole: entry.actorRole,
    action: entry.action,
    reviewId: entry.reviewId,
    effectKey: entry.effectKey,
    reason: entry.reason,
    details: entry.details,
    prevHash: entry.prevHash,
    hash: entry.hash,
  });

export type ArchiveVerdict =
  | { ok: true; entries: number; header: ArchiveHeader; checkpoint: Checkpoint; lastHash: string }
  | { ok: false; line: number; problem: string };

function parseLine<T>(schema: z.ZodType<T>, text: string, what: string): { value: T } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: "it is not JSON" };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `it is not ${what}: ${issue.path.join(".") || "line"}: ${issue.message}` };
  }
  return { value: parsed.data };
}

/**
 * Checks one archive file on its own: the header, every entry's numbering, link and recomputed
 * hash, the count and last seq the header promised, and the final checkpoint (its entry and hash
 * are the last line's, its signature verifies with `publicKey`). Names the first line (1-based)
 * that fails.
 */
export function verifyArchiveText(text: string, publicKey: KeyObject): ArchiveVerdict {
  const lines = text.split("\n");
  // The writer ends every line with a newline; an empty last piece is that, not a line.
  if (lines.at(-1) === "") lines.pop();
  const fail = (line: number, problem: string): ArchiveVerdict => ({ ok: false, line, problem });
  if (lines.length === 0) return fail(1, "the file is empty");

  const header = parseLine(archiveHeaderSchema, lines[0]!, "an archive header");
  if ("problem" in header) return fail(1, header.problem);
  const { firstSeq, lastSeq, entries, prevHash } = header.value;
  if (lastSeq - firstSeq + 1 !== entries) return fail(1, "its first and last seq do not span its entry count");

  let previousSeq = firstSeq - 1;
  let previousHash = prevHash;
  let previousAt: string | null = null;
  const entryLines = lines.slice(1, -1);
  for (const [index, text] of entryLines.entries()) {
    const line = index + 2;
    const parsed = parseLine(archiveEntrySchema, text, "an entry");
    if ("problem" in parsed) return fail(line, parsed.problem);
    const entry = parsed.value;
    if (entry.seq !== previousSeq + 1) {
      return fail(line, `entry ${entry.seq} follows entry ${previousSeq}: entries between are missing`);
    }
    if (entry.prevHash !== previousHash)
      return fail(line, `entry ${entry.seq}: its link to the previous entry is broken`);
    let expected: string;
    try {
      expected = archivedEntryHash(entry);
      // The time must be one the database could have rendered, or two texts would share a hash.
      if (formatEntryTime(epochOfEntryTime(entry.at)) !== entry.at) throw new Error("time out of range");
    } catch {
      return fail(line, `entry ${entry.seq}: its time is not a valid entry time`);
    }
    if (expected !== entry.hash) return fail(line, `entry ${entry.seq}: its content does not match its hash`);
    if (previousAt !== null && entry.at <= previousAt) {
      return fail(line, `entry ${entry.seq}: its time is not later than the previous entry's`);
    }
    if (!entry.at.startsWith(`${header.value.month}-`)) {
      return fail(line, `entry ${entry.seq}: its time is not in ${header.value.month}`);
    }
    previousSeq = entry.seq;
    previousHash = entry.hash;
    previousAt = entry.at;
  }
  const lastLine = lines.length;
  if (entryLines.length !== entries) {
    // A removed (or added) line: name where the count stops matching.
    return fail(lastLine, `the header promises ${entries} entries, the file holds ${entryLines.length}`);
  }
  if (previousSeq !== lastSeq) return fail(lastLine, `the last entry is ${previousSeq}, the header says ${lastSeq}`);

  if (lines.length < 2) return fail(2, "the signed checkpoint line is missing");
  const checkpoint = parseLine(checkpointSchema, lines[lastLine - 1]!, `a ${CHECKPOINT_KIND}`);
  if ("problem" in checkpoint) return fail(lastLine, checkpoint.problem);
  const c = checkpoint.value;
  if (c.seq !== previousSeq || c.hash !== previousHash || c.at !== previousAt) {
    return fail(lastLine, `the checkpoint names entry ${c.seq}, not the last entry ${previousSeq} with its hash`);
  }
  const problem = signatureProblem(c, publicKey);
  if (problem) return fail(lastLine, `the checkpoint: ${problem}`);
  return { ok: true, entries, header: header.value, checkpoint: c, lastHash: previousHash };
}

/**
 * The hash the archive holds for entry `seq`, or null when the file has no such entry. Call it
 * on a file verifyArchiveText accepted: only then does the hash stand for the chain.
 */
export function archivedHashOf(text: string, seq: number): string | null {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines.slice(1, -1)) {
    const parsed = parseLine(archiveEntrySchema, line, "an entry");
    if ("value" in parsed && parsed.value.seq === seq) return parsed.value.hash;
  }
  return null;
}
