import type { Actor } from "@/lib/auth/actor";
import { appendDecision, type DecisionEntry } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { type ActionRefusal, type ActionRequest, actionRefusal } from "../action-rules";
import { dbStatus } from "../detail";
import type { ReviewStatus } from "../schema";
import { markOperationItems } from "@/lib/operations/items-state";
import { correctedEnvelope } from "./corrected-envelope";

export type Tx = Prisma.TransactionClient;

export interface LockedRecord {
  id: string;
  status: ReviewStatus;
  category: string;
  version: number;
  message: unknown;
  effect_key: string | null;
  sequence_key: string | null;
  sequence: string | null;
  message_id: string | null;
  kind: string | null;
}

/** An expected refusal: the route turns it into its status, code and message. */
export type ActionOutcome =
  | { ok: true; replayId?: string }
  | {
      ok: false;
      status: 403 | 404 | 409 | 422;
      code: string;
      message: string;
      issues?: { path: string; message: string }[];
      refusal?: ActionRefusal;
    };

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
}

const refused = (status: 409 | 422, code: string, message: string, issues?: { path: string; message: string }[]) =>
  ({ ok: false, status, code, message, issues }) as const;

/**
 * A refusal found after the action began writing: the transaction must roll back. performAction
 * does that; a caller of performActionInTx catches it and rolls back itself (to a savepoint).
 */
export class ActionRefused extends Error {
  constructor(readonly outcome: Extract<ActionOutcome, { ok: false }>) {
    super(outcome.message);
  }
}

/**
 * One action on one record, in one transaction: lock the record, check its version and the
 * rules, make the change (journal, sequence, revision, replay), bump the version, write the
 * history entry, and append the decision-log entry last (it holds the chain's lock until commit).
 */
export async function performAction(
  recordId: string,
  request: ActionRequest,
  actor: Actor,
  context: ActionContext = {},
): Promise<ActionOutcome> {
  try {
    return await db().$transaction((tx) => performActionInTx(tx, recordId, request, actor, context), {
      timeout: 15_000,
    });
  } catch (error) {
    if (error instanceof ActionRefused) return error.outcome;
    throw error;
  }
}

/**
 * performAction inside the caller's transaction. Returns the expected refusals that come before
 * any write; throws ActionRefused for those found later, so the caller rolls back.
 */
export async function performActionInTx(
  tx: Tx,
  recordId: string,
  request: ActionRequest,
  actor: Actor,
  context: ActionContext = {},
): Promise<ActionOutcome> {
  const rows = await tx.$queryRawUnsafe<LockedRecord[]>(
    `SELECT id::text, status::text, category::text, version, message, effect_key, sequence_key,
            sequence::text, message_id, kind
       FROM review_records WHERE id = $1::uuid FOR UPDATE`,
    recordId,
  );
  const record = rows[0];
  if (!record) return { ok: false, status: 404, code: "not-found", message: `no review record ${recordId}` };
  if (record.version !== request.expectedVersion) {
    return refused(
      409,
      "stale-version",
      `the record changed (version ${record.version}, you saw ${request.expectedVersion}); review it again`,
    );
  }
  const refusal = actionRefusal(request.action, record, actor.role);
  if (refusal === "role") {
    return {
      ok: false,
      status: 403,
      code: "forbidden",
      message: `role ${actor.role} may not ${request.action}`,
      refusal,
    };
  }
  if (refusal) {
    return refused(
      409,
      "not-allowed",
      `${request.action} is not possible on a ${record.status} ${record.category} record`,
    );
  }
  const change = await apply(tx, record, request, actor, context);
  if (context.operationId) change.details = { ...change.details, operationId: context.operationId };
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
    effectKey: record.effect_key,
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
      if (!corrected.ok) throw new ActionRefused(refused(422, corrected.code, corrected.message, corrected.issues));
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
      if (record.effect_key) await tx.effectJournal.deleteMany({ where: { effectKey: record.effect_key } });
      const replay = await scheduleReplay(tx, record, actor, { runAt: request.runAt });
      return {
        toStatus: "replay-scheduled",
        details: { providerRef: request.providerRef ?? null, journal: "cleared", replayId: replay.id },
        replayId: replay.id,
      };
    }
    case "skip-gap":
      return skipGap(tx, record, actor);
  }
}

/** The envelope a replay would send: the newest revision, else the message as received. */
async function latestEnvelope(tx: Tx, record: LockedRecord): Promise<{ number: number; envelope: unknown }> {
  const revision = await tx.reviewRevision.findFirst({ where: { reviewId: record.id }, orderBy: { number: "desc" } });
  return revision ? { number: revision.number, envelope: revision.envelope } : { number: 0, envelope: record.message };
}

/** A correction may supply keys an invalid message lacked; the record's indexed copies follow. */
async function fillMissingKeys(tx: Tx, record: LockedRecord, envelope: Record<string, unknown>): Promise<void> {
  await tx.$executeRawUnsafe(
    `UPDATE review_records SET
       message_id = COALESCE(message_id, $2), kind = COALESCE(kind, $3), effect_key = COALESCE(effect_key, $4),
       sequence_key = COALESCE(sequence_key, $5), sequence = COALESCE(sequence, $6::bigint),
       payload_schema = $7
     WHERE id = $1::uuid`,
    record.id,
    envelope.id,
    envelope.kind,
    envelope.effectKey,
    envelope.sequenceKey,
    String(envelope.sequence),
    (envelope.payload as { schema?: string }).schema ?? null,
  );
  record.effect_key ??= envelope.effectKey as string;
  record.sequence_key ??= envelope.sequenceKey as string;
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
      sequenceKey: (keys?.sequenceKey as string | undefined) ?? record.sequence_key,
      sequence: typeof sequence === "number" || typeof sequence === "string" ? BigInt(sequence) : null,
      createdBy: actor.label,
      operationId: plan.operationId ?? null,
    },
  });
}

/** The row lock of a sequence key, created at 0 when the key was never seen. */
async function lockSequence(tx: Tx, sequenceKey: string): Promise<number> {
  await tx.$executeRawUnsafe(
    `INSERT INTO sequence_state (sequence_key) VALUES ($1) ON CONFLICT (sequence_key) DO NOTHING`,
    sequenceKey,
  );
  const rows = await tx.$queryRawUnsafe<{ last: string }[]>(
    `SELECT last_sequence::text AS last FROM sequence_state WHERE sequence_key = $1 FOR UPDATE`,
    sequenceKey,
  );
  return Number(rows[0]!.last);
}

async function setLastSequence(tx: Tx, sequenceKey: string, last: number): Promise<void> {
  await tx.$executeRawUnsafe(
    `UPDATE sequence_state SET last_sequence = $2::bigint, updated_at = now() WHERE sequence_key = $1`,
    sequenceKey,
    String(last),
  );
}

async function cancel(tx: Tx, record: LockedRecord): Promise<Change> {
  const details: Record<string, Prisma.InputJsonValue | null> = {};
  if (record.effect_key) {
    const journal = await tx.effectJournal.findUnique({ where: { effectKey: record.effect_key } });
    // Cancelling cannot undo an effect that exists; the record would then lie about it.
    if (journal?.state === "applied") {
      throw new ActionRefused(
        refused(409, "effect-applied", `effect ${record.effect_key} is already applied; it cannot be cancelled`),
      );
    }
    await tx.effectJournal.upsert({
      where: { effectKey: record.effect_key },
      create: {
        effectKey: record.effect_key,
        state: "cancelled",
        messageId: record.message_id,
        kind: record.kind,
        sequenceKey: record.sequence_key,
        sequence: record.sequence === null ? null : BigInt(record.sequence),
      },
      update: { state: "cancelled", leaseExpiresAt: null, updatedAt: new Date() },
    });
    details.journal = "cancelled";
  }
  const pending = await tx.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE replays SET state = 'cancelled', completed_at = now(), detail = 'cancelled with the record'
      WHERE review_id = $1::uuid AND state IN ('scheduled', 'claimed')
      RETURNING id::text`,
    record.id,
  );
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
  if (record.sequence_key && record.sequence !== null) {
    const last = await lockSequence(tx, record.sequence_key);
    if (Number(record.sequence) === last + 1) {
      await setLastSequence(tx, record.sequence_key, last + 1);
      details.sequenceAdvancedTo = last + 1;
    }
  }
  return { toStatus: "cancelled", details: details as Prisma.InputJsonObject, followUps };
}

async function confirmApplied(tx: Tx, record: LockedRecord, providerRef: string): Promise<Change> {
  if (!record.effect_key) {
    throw new ActionRefused(refused(409, "not-allowed", "the record has no effectKey to confirm"));
  }
  await tx.effectJournal.upsert({
    where: { effectKey: record.effect_key },
    create: {
      effectKey: record.effect_key,
      state: "applied",
      providerRef,
      messageId: record.message_id,
      kind: record.kind,
      sequenceKey: record.sequence_key,
      sequence: record.sequence === null ? null : BigInt(record.sequence),
    },
    update: { state: "applied", providerRef, leaseExpiresAt: null, updatedAt: new Date() },
  });
  const details: Record<string, Prisma.InputJsonValue> = { providerRef, journal: "applied" };
  if (record.sequence_key && record.sequence !== null) {
    const last = await lockSequence(tx, record.sequence_key);
    const sequence = Number(record.sequence);
    if (sequence > last) {
      await setLastSequence(tx, record.sequence_key, sequence);
      details.sequenceAdvancedTo = sequence;
    }
  }
  return { toStatus: "resolved", details };
}

async function skipGap(tx: Tx, record: LockedRecord, actor: Actor): Promise<Change> {
  if (!record.sequence_key || record.sequence === null) {
    throw new ActionRefused(refused(409, "not-allowed", "the record has no sequence to skip to"));
  }
  const sequence = Number(record.sequence);
  const last = await lockSequence(tx, record.sequence_key);
  if (sequence <= last + 1) {
    throw new ActionRefused(
      refused(409, "gap-closed", `the gap has closed: ${record.sequence_key} is at ${last}; replay the record instead`),
    );
  }
  const inFlight = await tx.$queryRawUnsafe<{ sequence: string }[]>(
    `SELECT sequence::text FROM effect_journal
      WHERE sequence_key = $1 AND sequence > $2::bigint AND sequence < $3::bigint
        AND state = 'started' AND lease_expires_at > now()
      LIMIT 1`,
    record.sequence_key,
    String(last),
    String(sequence),
  );
  if (inFlight[0]) {
    throw new ActionRefused(
      refused(
        409,
        "predecessor-in-flight",
        `message ${inFlight[0].sequence} of ${record.sequence_key} is being applied right now`,
      ),
    );
  }
  const lost = { from: last + 1, to: sequence - 1 };
  await setLastSequence(tx, record.sequence_key, sequence - 1);
  const replay = await scheduleReplay(tx, record, actor);
  return { toStatus: "replay-scheduled", details: { skipped: lost, replayId: replay.id }, replayId: replay.id };
}
