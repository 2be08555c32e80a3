import { conflict } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { LockedRecord } from "./perform-action";
import type { Tx } from "@/lib/db/client";

// The controls of a scheduled replay (ADR 0028): run it now, move it, or withdraw it and send the
// record back to open. Each runs inside performAction's transaction, after the record's row lock
// and the version and role checks.

interface ScheduledReplay {
  id: string;
  runAt: Date;
  operationId: string | null;
}

/** What a control changed: the record's next status and what history and the log say. */
export interface ReplayControlChange {
  toStatus: "replay-scheduled" | "open";
  details: Prisma.InputJsonObject;
  replayId: string;
}

/**
 * The record's scheduled replay, row-locked. A claim takes the replay's row first and the
 * record's second (lib/replays/claim.ts), and this action holds the record's row already: waiting
 * for the replay's row could deadlock, so a locked row is skipped and answered as what it is, a
 * consumer taking the replay right now (409, the record is about to be replaying).
 */
async function lockScheduledReplay(tx: Tx, record: LockedRecord): Promise<ScheduledReplay> {
  const rows = await tx.$queryRaw<ScheduledReplay[]>`
    SELECT id::text AS id, run_at AS "runAt", operation_id::text AS "operationId"
      FROM replays WHERE review_id = ${record.id}::uuid AND state = 'scheduled'
     ORDER BY created_at DESC
     LIMIT 1
       FOR UPDATE SKIP LOCKED`;
  const replay = rows[0];
  if (!replay) {
    throw conflict(
      "replay-claimed",
      "a consumer has just claimed this record's replay: the record is replaying; wait for its outcome",
    );
  }
  // A bulk operation paces, pauses and counts its replays (docs/operations.md): moving or
  // withdrawing one behind its back would corrupt its accounting, or leave an item waiting forever.
  if (replay.operationId) {
    throw conflict(
      "operation-replay",
      `this replay belongs to bulk operation ${replay.operationId}: pause or cancel the operation, or cancel the record`,
      { context: { operationId: replay.operationId } },
    );
  }
  return replay;
}

export async function runNow(tx: Tx, record: LockedRecord): Promise<ReplayControlChange> {
  const replay = await lockScheduledReplay(tx, record);
  const rows = await tx.$queryRaw<{ runAt: Date }[]>`
    UPDATE replays SET run_at = now() WHERE id = ${replay.id}::uuid RETURNING run_at AS "runAt"`;
  return {
    toStatus: "replay-scheduled",
    replayId: replay.id,
    details: { replayId: replay.id, runAt: rows[0]!.runAt.toISOString(), previousRunAt: replay.runAt.toISOString() },
  };
}

export async function reschedule(tx: Tx, record: LockedRecord, runAt: string): Promise<ReplayControlChange> {
  const replay = await lockScheduledReplay(tx, record);
  const at = new Date(runAt);
  await tx.$executeRaw`UPDATE replays SET run_at = ${at} WHERE id = ${replay.id}::uuid`;
  return {
    toStatus: "replay-scheduled",
    replayId: replay.id,
    details: { replayId: replay.id, runAt: at.toISOString(), previousRunAt: replay.runAt.toISOString() },
  };
}

/**
 * What stays after a replay is withdrawn, by the action that scheduled it. Nothing is undone: the
 * record goes back to open with the state its scheduling action left, which is a state an open
 * record of its category may be in, and the journal still guards the effectKey.
 */
const KEPT_AFTER_UNSCHEDULE: Record<string, string> = {
  replay: "nothing else changed when it was scheduled",
  "correct-and-replay": "the corrected revision stays; a later replay sends it",
  "confirm-not-applied": "the journal entry stays cleared, as the provider said; replay only after confirming again",
  "skip-gap": "the skipped range stays declared lost; the record waits as a ready gap",
};

/**
 * Withdraws the scheduled replay (state `cancelled`, detail `unscheduled`) and sends the record
 * back to open. The journal and the sequence are left as they are: see KEPT_AFTER_UNSCHEDULE and
 * ADR 0028 for why each origin is safe.
 */
export async function unschedule(tx: Tx, record: LockedRecord): Promise<ReplayControlChange> {
  const replay = await lockScheduledReplay(tx, record);
  await tx.$executeRaw`
    UPDATE replays SET state = 'cancelled', completed_at = now(), detail = 'unscheduled: the record is open again'
     WHERE id = ${replay.id}::uuid`;
  const origin = await originOf(tx, record.id, replay.id);
  return {
    toStatus: "open",
    replayId: replay.id,
    details: {
      replayId: replay.id,
      withdrawnRunAt: replay.runAt.toISOString(),
      origin,
      kept: KEPT_AFTER_UNSCHEDULE[origin] ?? "nothing was undone",
    },
  };
}

/** The action that scheduled the replay: the history entry that names it. */
async function originOf(tx: Tx, recordId: string, replayId: string): Promise<string> {
  const rows = await tx.$queryRaw<{ action: string }[]>`
    SELECT action FROM review_history
     WHERE review_id = ${recordId}::uuid AND details->>'replayId' = ${replayId}
     ORDER BY id LIMIT 1`;
  return rows[0]?.action ?? "unknown";
}
