import { z } from "zod";
import {
  type Decision,
  decide,
  type JournalState,
  isRecord,
  readEnvelopeKeys,
  defaultKindRegistry,
  type KindRegistry,
} from "@review-console/contract";
import { pendingRequestsOf } from "@/lib/approvals";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { type DomainPattern, matchDomain } from "@/lib/domain/kinds";
import { actionRefusal, type Authority } from "@/lib/reviews";
import type { ReviewStatus } from "@/lib/reviews";
import type { OperationAction, Verdict } from "./types";

const CHUNK = 5000;

interface DryRunRow {
  position: number;
  reviewId: string;
  /** `pending`, or `dispatched`: the operation's own replay, not finished yet (simulated, not judged). */
  itemState: "pending" | "dispatched";
  frozenVersion: number;
  version: number;
  status: ReviewStatus;
  category: string;
  envelope: string;
  effectKey: string | null;
  kind: string | null;
  /** Its kind's domain, matched in JS against domain_kinds read once (no SQL call per row). */
  domain?: string | null;
}

export interface ItemVerdict {
  verdict: Verdict;
  detail: string | null;
}

/** What the simulation knows of one key and of the effects so far. */
interface SimulatedState {
  lastSequence: Map<string, number>;
  applied: Set<string>;
  journal: Map<string, { state: JournalState; leaseExpiresAt: Date | null }>;
  inFlight: Map<string, number[]>;
}

/**
 * The console's registry decides the kinds it knows. A kind only a worker knows is decided on
 * its keys and sequence alone (its payload cannot be checked here), and the verdict says so.
 */
function registryFor(envelope: unknown): { registry: KindRegistry; unchecked: string | null } {
  const kind = readEnvelopeKeys(envelope).kind;
  if (kind === null || defaultKindRegistry.get(kind)) return { registry: defaultKindRegistry, unchecked: null };
  const version = isRecord(envelope) && isRecord(envelope.payload) ? envelope.payload.schema : undefined;
  if (typeof version !== "string" || version.length === 0) return { registry: defaultKindRegistry, unchecked: null };
  const def = { kind, schemas: { [version]: z.unknown() }, temporaryReasons: {} };
  return {
    registry: { get: (k) => (k === kind ? def : defaultKindRegistry.get(k)), kinds: () => defaultKindRegistry.kinds() },
    unchecked: `payload not checked: the console does not know kind ${kind}`,
  };
}

function replayVerdict(decision: Decision, unchecked: string | null): ItemVerdict {
  switch (decision.outcome) {
    case "apply-and-record":
      return { verdict: "would-apply", detail: unchecked };
    case "duplicate-suppressed":
      return { verdict: "would-suppress", detail: decision.because };
    case "wait":
      return { verdict: "would-wait", detail: decision.reason };
    case "review":
      if (decision.reason === "sequence-gap") return { verdict: "would-hold-gap", detail: decision.requiredCheck };
      if (decision.reason === "stale-or-conflicting") {
        return { verdict: "would-hold-stale", detail: decision.requiredCheck };
      }
      if (decision.reason === "effect-result-unknown") {
        return { verdict: "would-hold-unknown", detail: decision.requiredCheck };
      }
      return { verdict: "invalid", detail: `${decision.reason}: ${decision.requiredCheck}` };
  }
}

/**
 * A replay's verdict, and the simulation's state after it: an applied replay advances its key
 * and records its effect, so the operation's later replays of the key are judged after it.
 */
function judgeReplay(
  row: DryRunRow,
  role: Authority,
  sim: SimulatedState,
  now: Date,
  action: "replay" | "correct-and-replay" = "replay",
): ItemVerdict {
  if (row.version !== row.frozenVersion) {
    return { verdict: "changed", detail: `version ${row.frozenVersion} at the freeze, ${row.version} now` };
  }
  if (actionRefusal(action, row, role)) {
    return { verdict: "not-eligible", detail: `a ${row.status} ${row.category} record cannot be replayed` };
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(row.envelope);
  } catch {
    return { verdict: "invalid", detail: "the stored message is not JSON" };
  }
  const { decision, unchecked } = simulateReplay(envelope, sim, now);
  return replayVerdict(decision, unchecked);
}

/**
 * A replay of the operation that was dispatched but has no outcome yet runs before the pending
 * ones of its key (the claim hands a key's replays out in sequence order): the simulation goes
 * through it as it would run now. One that must wait is in flight right now and counts as
 * applied too; its effect is being created.
 */
function simulateDispatched(row: DryRunRow, sim: SimulatedState, now: Date): void {
  let envelope: unknown;
  try {
    envelope = JSON.parse(row.envelope);
  } catch {
    return;
  }
  const { decision } = simulateReplay(envelope, sim, now);
  if (decision.outcome === "wait") {
    advance(sim, decision.envelope.sequenceKey, decision.envelope.sequence, decision.envelope.effectKey);
  }
}

function advance(sim: SimulatedState, sequenceKey: string, sequence: number, effectKey: string): void {
  sim.lastSequence.set(sequenceKey, Math.max(sequence, sim.lastSequence.get(sequenceKey) ?? 0));
  sim.applied.add(effectKey);
}

/** What `decide` says for a replay of `envelope` against the simulated state, which it advances. */
function simulateReplay(
  envelope: unknown,
  sim: SimulatedState,
  now: Date,
): { decision: Decision; unchecked: string | null } {
  const keys = readEnvelopeKeys(envelope);
  const sequenceKey = keys.sequenceKey ?? "";
  const effectKey = keys.effectKey ?? "";
  const journal = sim.applied.has(effectKey)
    ? { state: "applied" as const, leaseExpiresAt: null }
    : (sim.journal.get(effectKey) ?? null);
  const { registry, unchecked } = registryFor(envelope);
  const decision = decide(
    envelope,
    {
      lastSequence: sim.lastSequence.get(sequenceKey) ?? 0,
      journal,
      inFlightSequences: sim.inFlight.get(sequenceKey) ?? [],
      now,
    },
    registry,
  );
  if (decision.outcome === "apply-and-record") {
    advance(sim, sequenceKey, decision.envelope.sequence, decision.envelope.effectKey);
  }
  return { decision, unchecked };
}

function judgeCancel(row: DryRunRow, role: Authority, sim: SimulatedState): ItemVerdict {
  if (row.version !== row.frozenVersion) {
    return { verdict: "changed", detail: `version ${row.frozenVersion} at the freeze, ${row.version} now` };
  }
  if (actionRefusal("cancel", row, role)) {
    return { verdict: "not-eligible", detail: `a ${row.status} ${row.category} record cannot be cancelled` };
  }
  if (row.effectKey && sim.journal.get(row.effectKey)?.state === "applied") {
    return { verdict: "effect-applied", detail: `effect ${row.effectKey} is already applied` };
  }
  return { verdict: "would-cancel", detail: null };
}

/** Reads the journal, sequence state and in-flight sequences a chunk's decisions need. */
async function loadState(tx: Prisma.TransactionClient, rows: DryRunRow[], sim: SimulatedState): Promise<void> {
  const effectKeys = new Set<string>();
  const sequenceKeys = new Set<string>();
  for (const row of rows) {
    try {
      const keys = readEnvelopeKeys(JSON.parse(row.envelope));
      if (keys.effectKey && !sim.journal.has(keys.effectKey)) effectKeys.add(keys.effectKey);
      if (keys.sequenceKey && !sim.lastSequence.has(keys.sequenceKey)) sequenceKeys.add(keys.sequenceKey);
    } catch {
      // judged invalid; nothing to load
    }
    if (row.effectKey && !sim.journal.has(row.effectKey)) effectKeys.add(row.effectKey);
  }
  const journal = await tx.$queryRaw<{ effectKey: string; state: JournalState; leaseExpiresAt: Date | null }[]>`
    SELECT effect_key AS "effectKey", state::text AS state, lease_expires_at AS "leaseExpiresAt"
      FROM effect_journal WHERE effect_key = ANY(${[...effectKeys]}::text[])`;
  for (const j of journal) sim.journal.set(j.effectKey, { state: j.state, leaseExpiresAt: j.leaseExpiresAt });
  const keys = [...sequenceKeys];
  const states = await tx.$queryRaw<{ sequenceKey: string; last: string }[]>`
    SELECT sequence_key AS "sequenceKey", last_sequence::text AS last
      FROM sequence_state WHERE sequence_key = ANY(${keys}::text[])`;
  for (const key of keys) sim.lastSequence.set(key, 0);
  for (const s of states) sim.lastSequence.set(s.sequenceKey, Number(s.last));
  const inFlight = await tx.$queryRaw<{ sequenceKey: string; sequence: string }[]>`
    SELECT sequence_key AS "sequenceKey", sequence::text AS sequence FROM effect_journal
     WHERE sequence_key = ANY(${keys}::text[]) AND state = 'started' AND lease_expires_at > now()`;
  for (const f of inFlight) {
    sim.inFlight.set(f.sequenceKey, [...(sim.inFlight.get(f.sequenceKey) ?? []), Number(f.sequence)]);
  }
}

/** The verdicts of a dry run, in position order, to save with its counts. */
export interface DryRunResult {
  counts: Partial<Record<Verdict, number>>;
  positions: number[];
  verdicts: string[];
  details: (string | null)[];
}

/**
 * The dry run of an operation's records not yet dispatched: what `decide` would say for each one
 * if its replay ran now, in dispatch order (so a key's earlier replays count for its later ones).
 * Reads one snapshot (a read-only REPEATABLE READ transaction, which locks nothing), so the
 * counts describe one moment; saveDryRun writes the verdicts.
 */
export async function computeDryRun(
  operationId: string,
  action: OperationAction,
  role: Authority,
): Promise<DryRunResult> {
  const now = new Date();
  const result: DryRunResult = { counts: {}, positions: [], verdicts: [], details: [] };
  const sim: SimulatedState = { lastSequence: new Map(), applied: new Set(), journal: new Map(), inFlight: new Map() };
  await db().$transaction(
    async (tx) => {
      await tx.$executeRaw`SET TRANSACTION READ ONLY`;
      const patterns = await tx.$queryRaw<DomainPattern[]>`SELECT pattern, domain FROM domain_kinds`;
      const [bounds] = await tx.$queryRaw<{ last: number }[]>`
        SELECT COALESCE(max(position), 0)::int AS last FROM bulk_operation_items
         WHERE operation_id = ${operationId}::uuid`;
      // Chunks are ranges of positions (the primary key's order), not "the next CHUNK items": with
      // a LIMIT, the state condition was planned as a scan of every remaining item, joined and
      // sorted again for each chunk, quadratic in the size of the selection (bench:bulk).
      for (let after = 0; after < (bounds?.last ?? 0); after += CHUNK) {
        const rows = await tx.$queryRaw<DryRunRow[]>`
          SELECT i.position, i.review_id::text AS "reviewId", i.state::text AS "itemState", i.frozen_version AS "frozenVersion", rr.version,
                 rr.status::text AS status, rr.category::text AS category,
                 COALESCE(rev.envelope::text, rr.message::text) AS envelope, rr.effect_key AS "effectKey", rr.kind
            FROM bulk_operation_items i
            JOIN review_records rr ON rr.id = i.review_id
            LEFT JOIN LATERAL (SELECT envelope FROM review_revisions v
                                WHERE v.review_id = rr.id ORDER BY v.number DESC LIMIT 1) rev ON true
           WHERE i.operation_id = ${operationId}::uuid AND i.position > ${after}::int
             AND i.position <= ${after + CHUNK}::int
             AND (i.state = 'pending' OR (i.state = 'dispatched' AND ${action === "replay"}::boolean))
           ORDER BY i.position`;
        if (rows.length === 0) continue;
        for (const row of rows) row.domain = matchDomain(row.kind, patterns);
        if (action !== "note") await loadState(tx, rows, sim);
        // A record whose approval request waits is not acted on by the operation (a note goes).
        const waiting =
          action === "note"
            ? new Map()
            : await pendingRequestsOf(
                tx,
                rows.map((row) => row.reviewId),
              );
        for (const row of rows) {
          if (row.itemState === "dispatched") {
            simulateDispatched(row, sim, now);
            continue;
          }
          const pending = waiting.get(row.reviewId);
          const judged: ItemVerdict = pending
            ? pendingVerdict(pending)
            : action === "replay"
              ? judgeReplay(row, role, sim, now)
              : action === "cancel"
                ? judgeCancel(row, role, sim)
                : ({ verdict: "would-note", detail: null } as ItemVerdict);
          result.counts[judged.verdict] = (result.counts[judged.verdict] ?? 0) + 1;
          result.positions.push(row.position);
          result.verdicts.push(judged.verdict);
          result.details.push(judged.detail === null ? null : judged.detail.slice(0, 500));
        }
      }
    },
    { timeout: 300_000, isolationLevel: "RepeatableRead" },
  );
  return result;
}

/**
 * Writes a dry run's verdicts on the items still pending, and clears those of the rest (an
 * earlier dry run's). In the caller's transaction, which holds the operation's row lock: nothing
 * is dispatched meanwhile, so the verdicts land on the records they were judged for.
 */
export async function saveDryRun(tx: Prisma.TransactionClient, operationId: string, result: DryRunResult) {
  await tx.$executeRaw`
    UPDATE bulk_operation_items SET verdict = NULL, verdict_detail = NULL
     WHERE operation_id = ${operationId}::uuid AND state <> 'pending' AND verdict IS NOT NULL`;
  for (let i = 0; i < result.positions.length; i += CHUNK) {
    await tx.$executeRaw`
      UPDATE bulk_operation_items i SET verdict = v.verdict, verdict_detail = v.detail
        FROM unnest(${result.positions.slice(i, i + CHUNK)}::int[], ${result.verdicts.slice(i, i + CHUNK)}::text[],
                    ${result.details.slice(i, i + CHUNK)}::text[]) AS v(position, verdict, detail)
       WHERE i.operation_id = ${operationId}::uuid AND i.position = v.position AND i.state = 'pending'`;
  }
}

/** One record as judgeRecordReplay reads it: what a dry run's row holds, and its latest envelope. */
/** A record whose approval request waits is not acted on by anything but a note. */
function pendingVerdict(pending: { decision: string; id: string }): ItemVerdict {
  return {
    verdict: "approval-pending",
    detail: `a ${pending.decision} of this record waits for approval (${pending.id})`,
  };
}

export interface JudgedRecord {
  id: string;
  version: number;
  status: ReviewStatus;
  category: string;
  effectKey: string | null;
  kind: string | null;
}

/**
 * The verdict a single replay of one record would get now (the record page shows it before a
 * person confirms): the dry run's own judge on a one-record operation, so a single action and a
 * bulk one are told the same thing. `envelope` is what the replay would send (the latest
 * revision, or a proposed correction). Read-only, in one snapshot like computeDryRun.
 */
export async function judgeRecordReplay(
  record: JudgedRecord,
  envelope: unknown,
  action: "replay" | "correct-and-replay",
  role: Authority,
): Promise<ItemVerdict> {
  const now = new Date();
  const sim: SimulatedState = { lastSequence: new Map(), applied: new Set(), journal: new Map(), inFlight: new Map() };
  return db().$transaction(
    async (tx) => {
      await tx.$executeRaw`SET TRANSACTION READ ONLY`;
      const patterns = await tx.$queryRaw<DomainPattern[]>`SELECT pattern, domain FROM domain_kinds`;
      const { id, ...judged } = record;
      const row: DryRunRow = {
        position: 1,
        reviewId: id,
        itemState: "pending",
        frozenVersion: record.version,
        ...judged,
        envelope: JSON.stringify(envelope ?? null),
        domain: matchDomain(record.kind, patterns),
      };
      const pending = (await pendingRequestsOf(tx, [id])).get(id);
      if (pending) return pendingVerdict(pending);
      await loadState(tx, [row], sim);
      return judgeReplay(row, role, sim, now, action);
    },
    { isolationLevel: "RepeatableRead" },
  );
}
