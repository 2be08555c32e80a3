import type { DecisionEntry } from "@/lib/audit";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { ItemState } from "./types";

type Tx = Prisma.TransactionClient;

/** The actor of what an operation does by itself: reaching its canary, pausing, completing. */
export const OPERATIONS_ACTOR = "system:operations";

/**
 * How an auto-pause's `pause_reason` starts: what tells it from a person's pause ("paused by ...")
 * and a lost authority ("paused: ..."), e.g. for the metric review_console_operations_auto_paused.
 */
export const AUTO_PAUSE_REASON_PREFIX = "auto-pause: ";

/**
 * Ends the items whose replays just ended outside a replay's outcome (an owner cancelled the
 * record). Only items still waiting on their replay change; the rest keep their final state. An
 * operation left with nothing to wait for completes: returns its log entries, to append after
 * the action's own entry.
 */
export async function markOperationItems(
  tx: Tx,
  replayIds: string[],
  state: ItemState,
  detail: string,
): Promise<DecisionEntry[]> {
  if (replayIds.length === 0) return [];
  // The operations' rows first, as a replay's outcome takes them (record, then operation): two
  // last items ending at once then see each other, and one of them completes the operation.
  await tx.$executeRaw`
    SELECT 1 FROM bulk_operations
     WHERE id IN (SELECT operation_id FROM bulk_operation_items WHERE replay_id = ANY(${replayIds}::uuid[]))
     ORDER BY id FOR UPDATE`;
  const ended = await tx.$queryRaw<{ operationId: string }[]>`
    UPDATE bulk_operation_items SET state = ${state}::"OperationItemState", detail = ${detail}, updated_at = now()
     WHERE replay_id = ANY(${replayIds}::uuid[]) AND state = 'dispatched'
     RETURNING operation_id::text AS "operationId"`;
  const entries: DecisionEntry[] = [];
  for (const operationId of new Set(ended.map((e) => e.operationId))) {
    entries.push(...(await completeIfDone(tx, operationId)));
  }
  return entries;
}

/** A replay's outcome as its item records it. */
const ITEM_STATE_OF_OUTCOME: Record<string, ItemState> = {
  applied: "applied",
  "duplicate-suppressed": "duplicate-suppressed",
  routed: "held-again",
  failed: "failed",
};

interface OperationCounters {
  id: string;
  state: string;
  /** Since the last confirm or resume. */
  outcomes: number;
  heldAgain: number;
  autoPauseThreshold: number | null;
  autoPauseMinOutcomes: number;
}

/**
 * The part of a replay's outcome that belongs to its operation, in the outcome's transaction:
 * the item gets its final state, the operation counts it, pauses itself when too many replays
 * end held again, and completes when nothing is left. Returns the decision-log entries to append
 * (after the outcome's own entry: appends come last in a transaction).
 */
export async function recordOperationOutcome(
  tx: Tx,
  replayId: string,
  outcome: string,
  detail: string | null,
): Promise<DecisionEntry[]> {
  const itemState = ITEM_STATE_OF_OUTCOME[outcome];
  if (!itemState) return [];
  const items = await tx.$queryRaw<{ operationId: string }[]>`
    UPDATE bulk_operation_items SET state = ${itemState}::"OperationItemState", detail = ${detail}, updated_at = now()
     WHERE replay_id = ${replayId}::uuid AND state = 'dispatched'
     RETURNING operation_id::text AS "operationId"`;
  const operationId = items[0]?.operationId;
  if (!operationId) return [];
  const heldAgain = itemState === "held-again" || itemState === "failed";
  const heldAgainCount = heldAgain ? 1 : 0;
  const [op] = await tx.$queryRaw<OperationCounters[]>`
    UPDATE bulk_operations SET outcomes = outcomes + 1, held_again = held_again + ${heldAgainCount}::int,
           auto_pause_outcomes = auto_pause_outcomes + 1,
           auto_pause_held_again = auto_pause_held_again + ${heldAgainCount}::int, updated_at = now()
     WHERE id = ${operationId}::uuid
     RETURNING id::text AS id, state::text AS state, auto_pause_outcomes AS outcomes,
               auto_pause_held_again AS "heldAgain", auto_pause_threshold AS "autoPauseThreshold",
               auto_pause_min_outcomes AS "autoPauseMinOutcomes"`;
  if (!op) return [];
  const entries: DecisionEntry[] = [];
  const share = op.heldAgain / op.outcomes;
  if (
    heldAgain &&
    (op.state === "running" || op.state === "awaiting-continue") &&
    op.autoPauseThreshold !== null &&
    op.outcomes >= op.autoPauseMinOutcomes &&
    share > op.autoPauseThreshold
  ) {
    const why =
      `${AUTO_PAUSE_REASON_PREFIX}${op.heldAgain} of ${op.outcomes} replays ended held again since the last start ` +
      `(${(share * 100).toFixed(1)}% > ${(op.autoPauseThreshold * 100).toFixed(1)}%)`;
    await tx.$executeRaw`
      UPDATE bulk_operations SET state = 'paused', pause_reason = ${why}, version = version + 1, updated_at = now()
       WHERE id = ${operationId}::uuid`;
    entries.push({
      actor: OPERATIONS_ACTOR,
      action: "operation.auto-paused",
      reason: why,
      details: { operationId, outcomes: op.outcomes, heldAgain: op.heldAgain, threshold: op.autoPauseThreshold },
    });
  }
  entries.push(...(await completeIfDone(tx, operationId)));
  return entries;
}

/**
 * Completes a confirmed operation with no item left waiting. Returns its log entry, if it did.
 * A planned operation is never completed (nothing was confirmed), nor an aborted one.
 */
export async function completeIfDone(tx: Tx, operationId: string): Promise<DecisionEntry[]> {
  const done = await tx.$queryRaw<{ state: string; dispatched: number; outcomes: number }[]>`
    UPDATE bulk_operations o SET state = 'completed', finished_at = now(), version = version + 1, updated_at = now()
     WHERE o.id = ${operationId}::uuid AND o.state IN ('running', 'awaiting-continue', 'paused')
       AND NOT EXISTS (SELECT 1 FROM bulk_operation_items i
                        WHERE i.operation_id = o.id AND i.state IN ('pending', 'dispatched'))
     RETURNING o.state::text AS state, o.dispatched, o.outcomes`;
  const row = done[0];
  if (!row) return [];
  return [
    {
      actor: OPERATIONS_ACTOR,
      action: "operation.completed",
      reason: "every record has its outcome",
      details: { operationId, dispatched: row.dispatched, outcomes: row.outcomes },
    },
  ];
}
