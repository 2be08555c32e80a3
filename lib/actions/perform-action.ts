import { type Actor, grantsOf, may } from "@/lib/access";
import type { ApprovalView } from "@/lib/approvals";
import { operationItemRefusal, pendingRequestRefusal } from "@/lib/approvals";
import { appendDecision, type DecisionEntry } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, forbidden, notFound, unprocessable } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/client";
import {
  ACTION_RULES,
  type ActionRequest,
  type AnyActionName,
  actionRefusal,
  sharedKeyRefusal,
  correctedEnvelope,
} from "@/lib/reviews";
import { dbStatus } from "./detail";
import type { ReviewStatus } from "@/lib/reviews";
import { markOperationItems } from "@/lib/operations";
import { assign } from "./assign";
import { reschedule, runNow, unschedule } from "./scheduled-replay";

export interface LockedRecord {
  id: string;
  status: ReviewStatus;
  category: string;
  version: number;
  message: unknown;
  effectKey: string | null;
  sequenceKey: string | null;
  sequence: string | null;
  messageId: string | null;
  kind: string | null;
  assigneeId: string | null;
  /** The domain of its kind (domain_of_kind), or null: what the actor's grants are read against. */
  domain: string | null;
}

/**
 * What a done action did. Every "no" is a thrown Refusal instead (lib/domain/refusal.ts); `ok`
 * stays so that callers written against the earlier outcome type keep reading the same field.
 */
export interface ActionOutcome {
  ok: true;
  replayId?: string;
  /** The action did not run: it waits for a second person (lib/approvals). */
  approval?: ApprovalView;
}

interface Change {
  toStatus: ReviewStatus;
  details: Prisma.InputJsonObject;
  replayId?: string;
  /** Entries the change caused beyond the action's own (an operation it completed), appended after it. */
  followUps?: DecisionEntry[];
}

/** Who else the action belongs to: a bulk operation (docs/operations.md) that dispatched it. */
export interface ActionContext {
  operationId?: string;
  /** Four eyes (lib/approvals): asked, once the action is known to fit, whether it must wait. */
  approvalGate?: ActionApprovalGate;
  /** The action runs because a second person approved it: both names go to history and the log. */
  approved?: { approvalId: string; requestedBy: string; approvedBy: string };
}

/**
 * Holds an action back for a second person. `needed` says whether this action on this record
 * must wait (null: run it now); then the action is tried (so only an action that would run is
 * held), rolled back, and `hold` stores the request in its place.
 */
export interface ActionApprovalGate {
  needed(tx: Tx, record: LockedRecord, request: ActionRequest): Promise<object | null>;
  hold(tx: Tx, record: LockedRecord, request: ActionRequest, needed: object): Promise<ApprovalView>;
}

/**
 * One action on one record, in one transaction: lock the record, check its version and the
 * rules, make the change (journal, sequence, revision, replay), bump the version, write the
 * history entry, and append the decision-log entry last (it holds the chain's lock until commit).
 * A refusal is thrown, and rolls back whatever the action had written.
 */
export async function performAction(
  recordId: string,
  request: ActionRequest,
  actor: Actor,
  context: ActionContext = {},
): Promise<ActionOutcome> {
  return db().$transaction((tx) => performActionInTx(tx, recordId, request, actor, context), { timeout: 15_000 });
}

/**
 * performAction inside the caller's transaction. A refusal is thrown, possibly after the action
 * began writing: a caller that goes on with its transaction rolls back itself (to a savepoint).
 */
export async function performActionInTx(
  tx: Tx,
  recordId: string,
  request: ActionRequest,
  actor: Actor,
  context: ActionContext = {},
): Promise<ActionOutcome> {
  const rows = await tx.$queryRaw<LockedRecord[]>`
    SELECT id::text AS id, status::text AS status, category::text AS category, version, message,
           effect_key AS "effectKey", sequence_key AS "sequenceKey", sequence::text AS sequence,
           message_id AS "messageId", kind, assignee_id::text AS "assigneeId",
           public.domain_of_kind(kind) AS domain
      FROM review_records WHERE id = ${recordId}::uuid FOR UPDATE`;
  const record = rows[0];
  const grants = grantsOf(actor);
  // A record outside the actor's domains does not exist for them: the same 404 as an unknown id,
  // before the version check could tell them otherwise (ADR 0030).
  if (!record || !may(actor, "reviews.read", { domain: record.domain })) throw notFound(`no review record ${recordId}`);
  if (record.version !== request.expectedVersion) {
    throw conflict(
      "stale-version",
      `the record changed (version ${record.version}, you saw ${request.expectedVersion}); review it again`,
    );
  }
  const refusal = actionRefusal(request.action, record, grants);
  if (refusal === "role") {
    const where = record.domain === null ? "" : ` in domain ${record.domain}`;
    throw forbidden("forbidden", `role ${actor.role} may not ${request.action}${where}`, {
      reviewId: recordId,
      details: { action: request.action, ...(record.domain !== null ? { domain: record.domain } : {}) },
    });
  }
  if (refusal) {
    throw conflict("not-allowed", `${request.action} is not possible on a ${record.status} ${record.category} record`);
  }
  // Four eyes on every path: nothing else changes a record whose request waits, and a bulk
  // operation takes an action a per-record policy holds back only when it was approved itself.
  const waiting = await pendingRequestRefusal(tx, record.id, request.action, context.approved?.approvalId);
  if (waiting) throw waiting;
  if (context.operationId) {
    const unapproved = await operationItemRefusal(tx, context.operationId, request.action, record.domain);
    if (unapproved) throw unapproved;
  }
  // A scoped actor changes no journal or sequence state another domain's record depends on
  // (docs/decisions/0038-keys-across-domains.md); a global actor is never asked.
  if (KEY_ACTIONS.has(request.action)) {
    const shared = await sharedKeyRefusal(tx, record, grants, ACTION_RULES[request.action].permission);
    if (shared) throw shared;
  }
  const held = context.approvalGate ? await context.approvalGate.needed(tx, record, request) : null;
  if (held) {
    // Tried and undone: a request that could not run (the gap closed, the effect is applied) is
    // refused now, not after someone approved it.
    await tx.$executeRaw`SAVEPOINT approval_check`;
    await apply(tx, record, request, actor, context);
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT approval_check`;
    return { ok: true, approval: await context.approvalGate!.hold(tx, record, request, held) };
  }
  const change = await apply(tx, record, request, actor, context);
  if (context.operationId) change.details = { ...change.details, operationId: context.operationId };
  if (context.approved) change.details = { ...change.details, approval: context.approved };
  await tx.reviewRecord.update({
    where: { id: record.id },
    data: {
      status: dbStatus(change.toStatus),
      version: { increment: 1 },
      updatedAt: new Date(),
    },
  });
  await tx.reviewHistory.create({
    data: {
      reviewId: record.id,
      actor: actor.label,
      action: request.action,
      fromStatus: dbStatus(record.status),
      toStatus: dbStatus(change.toStatus),
      reason: request.reason,
      details: change.details,
    },
  });
  await appendDecision(tx, {
    actor: actor.label,
    actorRole: actor.role,
    action: `review.${request.action}`,
    reviewId: record.id,
    effectKey: record.effectKey,
    reason: request.reason,
    details: {
      ...change.details,
      fromStatus: record.status,
      toStatus: change.toStatus,
      version: record.version + 1,
      checkDone: request.checkDone ?? false,
    },
  });
  for (const entry of change.followUps ?? []) await appendDecision(tx, entry);
  return { ok: true, replayId: change.replayId };
}

/**
 * Actions that write the record's journal entry or its key's sequence, or let a replay run that
 * will (replay, correct-and-replay, run-now, reschedule). A note, an assignment and withdrawing a
 * scheduled replay change neither.
 */
const KEY_ACTIONS: ReadonlySet<AnyActionName> = new Set<AnyActionName>([
  "replay",
  "correct-and-replay",
  "cancel",
  "confirm-applied",
  "confirm-not-applied",
  "skip-gap",
  "run-now",
  "reschedule",
]);

async function apply(
  tx: Tx,
  record: LockedRecord,
  request: ActionRequest,
  actor: Actor,
  context: ActionContext,
): Promise<Change> {
  switch (request.action) {
    case "note":
      return { toStatus: record.status, details: {} };
    case "replay": {
      const replay = await scheduleReplay(tx, record, actor, {
        runAt: request.runAt,
        operationId: context.operationId,
      });
      return {
        toStatus: "replay-scheduled",
        details: { replayId: replay.id, runAt: replay.runAt.toISOString() },
        replayId: replay.id,
      };
    }
    case "correct-and-replay": {
      const latest = await latestEnvelope(tx, record);
      const corrected = correctedEnvelope(latest.envelope, { payload: request.payload, envelope: request.envelope });
      if (!corrected.ok) throw unprocessable(corrected.code, corrected.message, { issues: corrected.issues });
      const number = latest.number + 1;
      await tx.reviewRevision.create({
        data: {
          reviewId: record.id,
          number,
          envelope: corrected.envelope as Prisma.InputJsonObject,
          reason: request.reason,
          createdBy: actor.label,
        },
      });
      await fillMissingKeys(tx, record, corrected.envelope);
      // Keys the correction supplied are checked as the record's own were (ADR 0038).
      const shared = await sharedKeyRefusal(tx, record, grantsOf(actor), ACTION_RULES[request.action].permission);
      if (shared) throw shared;
      const replay = await scheduleReplay(tx, record, actor, {
        runAt: request.runAt,
        revisionNumber: number,
        envelope: corrected.envelope,
      });
      return {
        toStatus: "replay-scheduled",
        details: { revision: number, replayId: replay.id, runAt: replay.runAt.toISOString() },
        replayId: replay.id,
      };
    }
    case "cancel":
      return cancel(tx, record);
    case "confirm-applied":
      return confirmApplied(tx, record, request.providerRef!);
    case "confirm-not-applied": {
      // The provider says the effect never happened: clear the journal entry so the replay may
      // create it, under the same effectKey (the provider's idempotency key).
      if (record.effectKey) await tx.effectJournal.deleteMany({ where: { effectKey: record.effectKey } });
      const replay = await scheduleReplay(tx, record, actor, { runAt: request.runAt });
      return {
        toStatus: "replay-scheduled",
        details: { providerRef: request.providerRef ?? null, journal: "cleared", replayId: replay.id },
        replayId: replay.id,
      };
    }
    case "skip-gap":
      return skipGap(tx, record, actor);
    case "run-now":
      return runNow(tx, record);
    case "reschedule":
      return reschedule(tx, record, request.runAt!);
    case "unschedule":
      return unschedule(tx, record);
    case "assign":
      return assign(tx, record, request.assignee ?? null, actor);
  }
}

/** The envelope a replay would send: the newest revision, else the message as received. */
async function latestEnvelope(tx: Tx, record: LockedRecord): Promise<{ number: number; envelope: unknown }> {
  const revision = await tx.reviewRevision.findFirst({ where: { reviewId: record.id }, orderBy: { number: "desc" } });
  return revision ? { number: revision.number, envelope: revision.envelope } : { number: 0, envelope: record.message };
}

/** A correction may supply keys an invalid message lacked; the record's indexed copies follow. */
async function fillMissingKeys(tx: Tx, record: LockedRecord, envelope: Record<string, unknown>): Promise<void> {
  await tx.$executeRaw`
    UPDATE review_records SET
       message_id = COALESCE(message_id, ${envelope.id}), kind = COALESCE(kind, ${envelope.kind}),
       effect_key = COALESCE(effect_key, ${envelope.effectKey}),
       sequence_key = COALESCE(sequence_key, ${envelope.sequenceKey}),
       sequence = COALESCE(sequence, ${String(envelope.sequence)}::bigint),
       payload_schema = ${(envelope.payload as { schema?: string }).schema ?? null}
     WHERE id = ${record.id}::uuid`;
  record.effectKey ??= envelope.effectKey as string;
  record.sequenceKey ??= envelope.sequenceKey as string;
  record.sequence ??= String(envelope.sequence);
}

interface ReplayPlan {
  runAt?: string;
  revisionNumber?: number;
  envelope?: Record<string, unknown>;
  operationId?: string;
}

async function scheduleReplay(tx: Tx, record: LockedRecord, actor: Actor, plan: ReplayPlan = {}) {
  const { runAt, revisionNumber, envelope } = plan;
  const number = revisionNumber ?? (await latestEnvelope(tx, record)).number;
  const keys = envelope ?? (record.message as Record<string, unknown>);
  const sequence = keys?.sequence ?? record.sequence;
  return tx.replay.create({
    data: {
      reviewId: record.id,
      revisionNumber: number,
      runAt: runAt ? new Date(runAt) : new Date(),
      sequenceKey: (keys?.sequenceKey as string | undefined) ?? record.sequenceKey,
      sequence: typeof sequence === "number" || typeof sequence === "string" ? BigInt(sequence) : null,
      createdBy: actor.label,
      operationId: plan.operationId ?? null,
    },
  });
}

/** The row lock of a sequence key, created at 0 when the key was never seen. */
async function lockSequence(tx: Tx, sequenceKey: string): Promise<number> {
  await tx.$executeRaw`
    INSERT INTO sequence_state (sequence_key) VALUES (${sequenceKey}) ON CONFLICT (sequence_key) DO NOTHING`;
  const rows = await tx.$queryRaw<{ last: string }[]>`
    SELECT last_sequence::text AS last FROM sequence_state WHERE sequence_key = ${sequenceKey} FOR UPDATE`;
  return Number(rows[0]!.last);
}

async function setLastSequence(tx: Tx, sequenceKey: string, last: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE sequence_state SET last_sequence = ${String(last)}::bigint, updated_at = now()
     WHERE sequence_key = ${sequenceKey}`;
}

async function cancel(tx: Tx, record: LockedRecord): Promise<Change> {
  const details: Record<string, Prisma.InputJsonValue | null> = {};
  if (record.effectKey) {
    const journal = await tx.effectJournal.findUnique({ where: { effectKey: record.effectKey } });
    // Cancelling cannot undo an effect that exists; the record would then lie about it.
    if (journal?.state === "applied") {
      throw conflict("effect-applied", `effect ${record.effectKey} is already applied; it cannot be cancelled`);
    }
    await tx.effectJournal.upsert({
      where: { effectKey: record.effectKey },
      create: {
        effectKey: record.effectKey,
        state: "cancelled",
        messageId: record.messageId,
        kind: record.kind,
        sequenceKey: record.sequenceKey,
        sequence: record.sequence === null ? null : BigInt(record.sequence),
      },
      update: { state: "cancelled", leaseExpiresAt: null, updatedAt: new Date() },
    });
    details.journal = "cancelled";
  }
  const pending = await tx.$queryRaw<{ id: string }[]>`
    UPDATE replays SET state = 'cancelled', completed_at = now(), detail = 'cancelled with the record'
     WHERE review_id = ${record.id}::uuid AND state IN ('scheduled', 'claimed')
     RETURNING id::text AS id`;
  details.replaysCancelled = pending.length;
  // A replay a bulk operation scheduled ends here: its item says so (docs/operations.md), and an
  // operation with nothing left to wait for completes.
  const followUps = await markOperationItems(
    tx,
    pending.map((r) => r.id),
    "cancelled",
    "an owner cancelled the record while its replay waited",
  );
  // A cancelled message that was next in its sequence consumes its slot, so its successors flow.
  if (record.sequenceKey && record.sequence !== null) {
    const last = await lockSequence(tx, record.sequenceKey);
    if (Number(record.sequence) === last + 1) {
      await setLastSequence(tx, record.sequenceKey, last + 1);
      details.sequenceAdvancedTo = last + 1;
    }
  }
  return { toStatus: "cancelled", details: details as Prisma.InputJsonObject, followUps };
}

async function confirmApplied(tx: Tx, record: LockedRecord, providerRef: string): Promise<Change> {
  if (!record.effectKey) {
    throw conflict("not-allowed", "the record has no effectKey to confirm");
  }
  await tx.effectJournal.upsert({
    where: { effectKey: record.effectKey },
    create: {
      effectKey: record.effectKey,
      state: "applied",
      providerRef,
      messageId: record.messageId,
      kind: record.kind,
      sequenceKey: record.sequenceKey,
      sequence: record.sequence === null ? null : BigInt(record.sequence),
    },
    update: { state: "applied", providerRef, leaseExpiresAt: null, updatedAt: new Date() },
  });
  const details: Record<string, Prisma.InputJsonValue> = { providerRef, journal: "applied" };
  if (record.sequenceKey && record.sequence !== null) {
    const last = await lockSequence(tx, record.sequenceKey);
    const sequence = Number(record.sequence);
    if (sequence > last) {
      await setLastSequence(tx, record.sequenceKey, sequence);
      details.sequenceAdvancedTo = sequence;
    }
  }
  return { toStatus: "resolved", details };
}

async function skipGap(tx: Tx, record: LockedRecord, actor: Actor): Promise<Change> {
  if (!record.sequenceKey || record.sequence === null) {
    throw conflict("not-allowed", "the record has no sequence to skip to");
  }
  const sequence = Number(record.sequence);
  const last = await lockSequence(tx, record.sequenceKey);
  if (sequence <= last + 1) {
    throw conflict("gap-closed", `the gap has closed: ${record.sequenceKey} is at ${last}; replay the record instead`);
  }
  const inFlight = await tx.$queryRaw<{ sequence: string }[]>`
    SELECT sequence::text AS sequence FROM effect_journal
     WHERE sequence_key = ${record.sequenceKey} AND sequence > ${String(last)}::bigint
       AND sequence < ${String(sequence)}::bigint AND state = 'started' AND lease_expires_at > now()
     LIMIT 1`;
  if (inFlight[0]) {
    throw conflict(
      "predecessor-in-flight",
      `message ${inFlight[0].sequence} of ${record.sequenceKey} is being applied right now`,
    );
  }
  const lost = { from: last + 1, to: sequence - 1 };
  await setLastSequence(tx, record.sequenceKey, sequence - 1);
  const replay = await scheduleReplay(tx, record, actor);
  return { toStatus: "replay-scheduled", details: { skipped: lost, replayId: replay.id }, replayId: replay.id };
}
