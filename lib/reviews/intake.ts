import { createHash } from "node:crypto";
import { readEnvelopeKeys } from "@review-console/contract";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Actor } from "@/lib/auth/actor";
import { countDecisions } from "@/lib/metrics/decisions";
import { IntakeCoalescer } from "./intake-coalescer";
import type { ReportInput, ReviewStatus } from "./schema";

export interface IntakeResult {
  id: string;
  status: ReviewStatus;
  /** true when this report created the record, false when it joined an active one. */
  created: boolean;
  attempts: number;
}

// B-tree entries are limited to about 2.7 kB; keys longer than this are indexed by a prefix.
const INDEXED_KEY_CHARS = 500;

function indexable(value: string | null): string | null {
  if (value === null) return null;
  // A NUL cannot be stored in PostgreSQL text; the raw message keeps the original.
  const clean = value.replaceAll("\u0000", "\uFFFD");
  return clean.length > INDEXED_KEY_CHARS ? clean.slice(0, INDEXED_KEY_CHARS) : clean;
}

/** `id:<message id>` when the message has one, else a fingerprint of its text. */
export function messageKeyOf(messageText: string, messageId: string | null): string {
  if (messageId !== null && messageId.length <= 200 && !messageId.includes("\u0000")) return `id:${messageId}`;
  const basis = messageId !== null ? `id:${messageId}` : messageText;
  return `fp:${createHash("sha256").update(basis).digest("hex")}`;
}

interface PreparedReport {
  input: ReportInput;
  messageText: string;
  messageKey: string;
  keys: ReturnType<typeof readEnvelopeKeys>;
}

export interface Report {
  input: ReportInput;
  /** The message's JSON text exactly as it was sent; JSON.stringify of the parsed value if absent. */
  rawMessage?: string;
}

function prepare({ input, rawMessage }: Report): PreparedReport {
  // The fingerprint reads the parsed form, so the same message sent with other white space is
  // still the same message; the `json` column keeps the raw text byte for byte.
  const canonical = JSON.stringify(input.message);
  const keys = readEnvelopeKeys(input.message);
  return { input, messageText: rawMessage ?? canonical, keys, messageKey: messageKeyOf(canonical, keys.id) };
}

interface IntakeRow {
  /** The report's position in its round: joined in SQL, so text the database normalises cannot mismatch. */
  ord: number;
  id: string;
  status: ReviewStatus;
  attempts: number;
  created: boolean;
}

type Tx = Pick<Prisma.TransactionClient, "$queryRaw">;

/**
 * One statement per round: upsert the records on the active-message index, add a history entry
 * each, and append each to the decision log, all in the statement's one transaction. The log
 * insert runs last in it, so the chain's lock is held only until the commit right after. The
 * reports travel as one typed array per column (unnest), so a round of 500 is still 17 parameters.
 */
async function intakeRound(tx: Tx, reports: PreparedReport[], actor: Actor): Promise<Map<number, IntakeRow>> {
  const col = <T>(f: (r: PreparedReport, i: number) => T) => reports.map(f);
  const rows = await tx.$queryRaw<IntakeRow[]>`
WITH input AS (
  SELECT * FROM unnest(
    ${col((_, i) => i)}::int[],
    ${col((r) => r.input.category)}::"ReviewCategory"[],
    ${col((r) => r.input.reason)}::text[],
    ${col((r) => r.input.requiredCheck)}::text[],
    ${col((r) => r.input.attempts)}::int[],
    ${col((r) => r.input.lastError ?? null)}::text[],
    ${col((r) => r.messageText)}::text[],
    ${col((r) => r.messageKey)}::text[],
    ${col((r) => indexable(r.keys.id))}::text[],
    ${col((r) => indexable(r.keys.kind))}::text[],
    ${col((r) => indexable(r.keys.effectKey))}::text[],
    ${col((r) => indexable(r.keys.sequenceKey))}::text[],
    ${col((r) => (r.keys.sequence === null ? null : String(r.keys.sequence)))}::bigint[],
    ${col((r) => indexable(r.keys.schema))}::text[],
    ${col((r) => (r.input.source ? JSON.stringify(r.input.source) : null))}::text[]
  ) AS t(ord, category, reason, required_check, attempts, last_error, message, message_key,
         message_id, kind, effect_key, sequence_key, sequence, payload_schema, source)
), up AS (
  INSERT INTO review_records AS r (category, reason, required_check, attempts, last_error, message,
      message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source)
  SELECT category, reason, required_check, attempts, last_error, message::json,
      message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source::jsonb
    FROM input ORDER BY ord
  ON CONFLICT (message_key) WHERE status IN ('open', 'replay-scheduled', 'replaying')
  DO UPDATE SET
      -- Every report is at least one more failed attempt, even when the consumer's own
      -- counter restarted (a new worker, a redelivery after a crash).
      attempts = GREATEST(r.attempts + 1, EXCLUDED.attempts),
      report_count = r.report_count + 1,
      category = EXCLUDED.category,
      reason = EXCLUDED.reason,
      required_check = EXCLUDED.required_check,
      last_error = COALESCE(EXCLUDED.last_error, r.last_error),
      source = COALESCE(EXCLUDED.source, r.source),
      last_seen_at = now(),
      updated_at = now(),
      version = r.version + 1
  RETURNING r.id, r.message_key, r.status::text AS status, r.attempts, r.effect_key, (r.xmax = 0) AS created
), history AS (
  INSERT INTO review_history (review_id, actor, action, to_status, reason, details)
  SELECT up.id, ${actor.label}, CASE WHEN up.created THEN 'reported' ELSE 'reported-again' END,
         up.status::"ReviewStatus", i.reason,
         jsonb_build_object('category', i.category, 'attempts', up.attempts, 'reportedAttempts', i.attempts,
                            'lastError', i.last_error, 'source', i.source::jsonb)
    FROM up JOIN input i USING (message_key)
), logged AS (
  INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details)
  SELECT ${actor.label}, ${actor.role}, CASE WHEN up.created THEN 'review.reported' ELSE 'review.reported-again' END,
         up.id, up.effect_key, i.reason,
         jsonb_build_object('category', i.category, 'attempts', up.attempts, 'messageId', i.message_id,
                            'kind', i.kind, 'source', i.source::jsonb)
    FROM up JOIN input i USING (message_key) ORDER BY i.ord
)
SELECT i.ord, up.id::text AS id, up.status, up.attempts, up.created FROM up JOIN input i USING (message_key)`;
  // One log entry per row, as the `logged` CTE wrote them.
  const created = rows.filter((row) => row.created).length;
  countDecisions(tx, "review.reported", created);
  countDecisions(tx, "review.reported-again", rows.length - created);
  return new Map(rows.map((row) => [row.ord, row]));
}

/**
 * Splits reports into rounds in which each message appears once: one INSERT .. ON CONFLICT may
 * not touch the same row twice, and applying repeats in order gives the same result as sending
 * them one by one.
 */
function rounds(prepared: PreparedReport[]): { report: PreparedReport; index: number }[][] {
  const out: { report: PreparedReport; index: number }[][] = [];
  let pending = prepared.map((report, index) => ({ report, index }));
  while (pending.length > 0) {
    const seen = new Set<string>();
    const round: typeof pending = [];
    const later: typeof pending = [];
    for (const item of pending) {
      (seen.has(item.report.messageKey) ? later : round).push(item);
      seen.add(item.report.messageKey);
    }
    out.push(round);
    pending = later;
  }
  return out;
}

/** Records reports: all of them or, on an unexpected error, none. */
export async function intakeReports(inputs: Report[], actor: Actor): Promise<IntakeResult[]> {
  const plan = rounds(inputs.map(prepare));
  const results: IntakeResult[] = new Array(inputs.length);
  const run = async (tx: Tx) => {
    for (const round of plan) {
      const rows = await intakeRound(
        tx,
        round.map((item) => item.report),
        actor,
      );
      for (const [ord, item] of round.entries()) {
        const row = rows.get(ord);
        if (!row) throw new Error(`intake returned no row for ${item.report.messageKey}`);
        results[item.index] = { id: row.id, status: row.status, created: row.created, attempts: row.attempts };
      }
    }
  };
  // The common case, one round, is a single statement and so already atomic.
  if (plan.length === 1) await run(db());
  else await db().$transaction((tx) => run(tx));
  return results;
}

// On globalThis: Next may load this module twice, and both copies must join the same queue.
const shared = globalThis as unknown as { reviewConsoleIntakeCoalescer?: IntakeCoalescer };

/** The process's coalescer of single-record intake (lib/reviews/intake-coalescer.ts). */
export function intakeCoalescer(): IntakeCoalescer {
  return (shared.reviewConsoleIntakeCoalescer ??= new IntakeCoalescer(intakeReports));
}

/**
 * Records one report as intakeReports would, but shares its statement with the same actor's
 * reports that arrive at the same time: same records, history and log entries, fewer commits.
 */
export function intakeReport(report: Report, actor: Actor): Promise<IntakeResult> {
  return intakeCoalescer().intake(report, actor);
}
