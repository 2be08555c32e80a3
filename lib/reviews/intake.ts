import { createHash } from "node:crypto";
import { readEnvelopeKeys } from "@review-console/contract";
import type pg from "pg";
import { db, dbPool } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { type Actor } from "@/lib/access";
import { countDecisions } from "@/lib/metrics/decisions";
import type { Refusal } from "@/lib/domain/refusal";
import { keyInOtherDomain, landedOutsideDomain, reporterDomains } from "./cross-domain";
import { IntakeCoalescer } from "./intake-coalescer";
import { type IntakeRow, type IntakeRowInput, intakeRoundQuery, runIntakeRound } from "./intake-statement";
import type { ReportInput, ReviewStatus } from "./schema";

export interface IntakeResult {
  id: string;
  status: ReviewStatus;
  /** true when this report created the record, false when it joined an active one. */
  created: boolean;
  attempts: number;
}

/**
 * A report the statement did not write, and why: a scoped reporter's report that would have
 * changed another domain's record or shared its key (docs/decisions/0038-keys-across-domains.md).
 */
export interface IntakeRefused {
  refused: Refusal;
}

export type IntakeOutcome = IntakeResult | IntakeRefused;

export function isRefused(outcome: IntakeOutcome): outcome is IntakeRefused {
  return "refused" in outcome;
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

/**
 * Text as PostgreSQL stores it: an unpaired UTF-16 surrogate (which has no UTF-8 form) becomes
 * U+FFFD, as node-postgres' UTF-8 encoding of a text parameter always made it. In the JSON
 * parameter it would be a `\ud800` escape, which PostgreSQL refuses.
 */
function storable<T extends string | null | undefined>(text: T): T {
  return (typeof text === "string" && !text.isWellFormed() ? text.toWellFormed() : text) as T;
}

/** The statement's input row of a report: the columns it writes, with its position `ord`. */
function inputRow(report: PreparedReport, ord: number): IntakeRowInput {
  const { input, keys } = report;
  const source = input.source && {
    transport: storable(input.source.transport),
    queue: storable(input.source.queue),
    consumer: storable(input.source.consumer),
    transportId: storable(input.source.transportId),
  };
  return {
    ord,
    category: input.category,
    reason: storable(input.reason),
    required_check: storable(input.requiredCheck),
    attempts: input.attempts,
    last_error: storable(input.lastError),
    error_class: storable(input.errorClass),
    message: report.messageText,
    message_key: storable(report.messageKey),
    message_id: storable(indexable(keys.id)),
    kind: storable(indexable(keys.kind)),
    effect_key: storable(indexable(keys.effectKey)),
    sequence_key: storable(indexable(keys.sequenceKey)),
    sequence: keys.sequence,
    payload_schema: storable(indexable(keys.schema)),
    source,
  };
}

type Queryable = Parameters<typeof runIntakeRound>[0];

/** The statement of one round of `reports` (distinct messages), for the benchmarks. */
export function intakeRoundQueryOf(reports: Report[], actor: Actor): pg.QueryConfig<unknown[]> {
  return intakeRoundQuery(reports.map(prepare).map(inputRow), actor, reporterDomains(actor));
}

/** One round (lib/reviews/intake-statement.ts): each report's row, by its position in the round. */
async function intakeRound(
  client: Queryable,
  reports: PreparedReport[],
  actor: Actor,
  domains: readonly string[] | null,
): Promise<Map<number, IntakeRow>> {
  const rows = await runIntakeRound(client, reports.map(inputRow), actor, domains);
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

/** What became of one report: its record, or the refusal of a report that was not written. */
function outcomeOf(row: IntakeRow, report: PreparedReport, domains: readonly string[] | null): IntakeOutcome {
  if (row.refused === null && row.id !== null) {
    return { id: row.id, status: row.status, created: row.created, attempts: row.attempts };
  }
  if (row.refused === "message.id" || row.refused === null) {
    // The statement reads the collided record's domain after the fact; a record too fresh for its
    // snapshot is "another domain".
    return { refused: landedOutsideDomain(domains ?? [], row.other_domain ?? undefined) };
  }
  const field = row.refused === "message.effectKey" ? "effectKey" : "sequenceKey";
  const key = field === "effectKey" ? report.keys.effectKey : report.keys.sequenceKey;
  return { refused: keyInOtherDomain(field, key ?? "", row.other_domain, row.refused) };
}

/**
 * Records reports: all of them or, on an unexpected error, none. A scoped reporter's report that
 * would change another domain's record or share its key is not written and comes back refused
 * (the others are written).
 */
export async function intakeOutcomes(inputs: Report[], actor: Actor): Promise<IntakeOutcome[]> {
  const plan = rounds(inputs.map(prepare));
  const domains = reporterDomains(actor);
  const results: IntakeOutcome[] = new Array(inputs.length);
  const run = async (client: Queryable) => {
    for (const round of plan) {
      const rows = await intakeRound(
        client,
        round.map((item) => item.report),
        actor,
        domains,
      );
      for (const [ord, item] of round.entries()) {
        const row = rows.get(ord);
        if (!row) throw new Error(`intake returned no row for ${item.report.messageKey}`);
        results[item.index] = outcomeOf(row, item.report, domains);
      }
    }
  };
  // The common case, one round, is a single statement and so already atomic.
  if (plan.length === 1) await run(dbPool());
  else await inTransaction(run);
  // One log entry per report, as the statements' `logged` CTE wrote them; committed by now.
  const written = results.filter((result): result is IntakeResult => !isRefused(result));
  const created = written.filter((result) => result.created).length;
  countDecisions(db(), "review.reported", created);
  countDecisions(db(), "review.reported-again", written.length - created);
  return results;
}

/**
 * intakeOutcomes for reporters that are never refused: the system's own actors and global tokens
 * (the seed, the in-process worker, benches). A refused report would throw its Refusal after the
 * others were written.
 */
export async function intakeReports(inputs: Report[], actor: Actor): Promise<IntakeResult[]> {
  const outcomes = await intakeOutcomes(inputs, actor);
  for (const outcome of outcomes) if (isRefused(outcome)) throw outcome.refused;
  return outcomes as IntakeResult[];
}

/** `body` on one connection between BEGIN and COMMIT; ROLLBACK when it throws. */
async function inTransaction(body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await dbPool().connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    try {
      await body(client);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch((failure: Error) => (broken = failure));
      throw error;
    }
  } catch (error) {
    broken ??= isDatabaseUnavailable(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    // A connection that failed under us is discarded, not handed to the next caller.
    client.release(broken);
  }
}

// On globalThis: Next may load this module twice, and both copies must join the same queue.
const shared = globalThis as unknown as { reviewConsoleIntakeCoalescer?: IntakeCoalescer };

/** The process's coalescer of single-record intake (lib/reviews/intake-coalescer.ts). */
export function intakeCoalescer(): IntakeCoalescer {
  return (shared.reviewConsoleIntakeCoalescer ??= new IntakeCoalescer(intakeOutcomes));
}

/**
 * Records one report as intakeReports would, but shares its statement with the same actor's
 * reports that arrive at the same time: same records, history and log entries, fewer commits.
 * A report intakeOutcomes refuses rejects with its Refusal.
 */
export function intakeReport(report: Report, actor: Actor): Promise<IntakeResult> {
  return intakeCoalescer().intake(report, actor);
}
