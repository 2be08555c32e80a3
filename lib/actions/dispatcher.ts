import { type Actor, systemActor } from "@/lib/access";
import { appendDecision, type DecisionEntry } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { Refusal } from "@/lib/domain/refusal";
import type { Role } from "@/lib/generated/prisma/enums";
import { log } from "@/lib/log";
import { FailureBackoff } from "@/lib/failure-backoff";
import { performActionInTx } from "./perform-action";
import type { Tx } from "@/lib/db/client";
import { sleep } from "@review-console/consumer";
import {
  operationAuthority,
  pauseForLostAuthority,
  appendBatchEntries,
  type BatchItem,
  type BatchOutcome,
  type BatchResult,
  noteBatch,
  replayBatch,
  completeIfDone,
  OPERATIONS_ACTOR,
} from "@/lib/operations";
import { autoReplayReady } from "./auto-replay";
import type { OperationAction } from "@/lib/operations";

interface DueOperation {
  id: string;
  action: OperationAction;
  state: string;
  reason: string;
  createdBy: string;
  createdRole: Role;
  authorityActor: string | null;
  /** The domains of its selection, frozen at creation (ADR 0030). */
  domains: string[];
  ratePerSecond: number;
  canarySize: number;
  canaryPassed: boolean;
  dispatched: number;
  windowDispatched: number;
  /** Seconds since the rate window began. */
  elapsed: number;
  /** Seconds until runAt, when it is still ahead. */
  startsIn: number;
}

/** Records acted on in one transaction at most (replays and notes; a cancel goes alone). */
export const MAX_BATCH = 200;

/** What one dispatch step found: acted (go on), or wait this long, or nothing to do now. */
export type StepResult = { type: "dispatched" | "skipped" } | { type: "wait"; ms: number } | { type: "idle" };

/** Catching up after a stall (a restart, a long pause of the process) sends at most one second's worth. */
function burstCap(rate: number): number {
  return Math.max(1, Math.ceil(rate));
}

/**
 * Dispatches the next records of one operation, in one transaction that holds the operation's row
 * lock: checks the state, the start time, the canary and the rate, takes as many pending items
 * in position order as the rate allows now (at most MAX_BATCH) and acts on each record as the
 * single-record action would (same rules, its version as frozen, its own decision-log entry),
 * then counts them. The items' new states commit with the actions, so a restart never acts on a
 * record twice, and concurrent dispatchers (several console processes) take turns on the lock.
 */
export async function dispatchStep(operationId: string, maxItems = MAX_BATCH): Promise<StepResult> {
  return db().$transaction(
    async (tx) => {
      const rows = await tx.$queryRaw<DueOperation[]>`
        SELECT id::text AS id, action::text AS action, state::text AS state, reason, created_by AS "createdBy",
               created_role::text AS "createdRole", authority_actor AS "authorityActor", domains,
               rate_per_second AS "ratePerSecond", canary_size AS "canarySize", canary_passed AS "canaryPassed",
               dispatched, window_dispatched AS "windowDispatched",
               GREATEST(0, extract(epoch FROM now() - COALESCE(window_started_at, now())))::float8 AS elapsed,
               GREATEST(0, extract(epoch FROM COALESCE(run_at, now()) - now()))::float8 AS "startsIn"
          FROM bulk_operations WHERE id = ${operationId}::uuid FOR UPDATE`;
      const op = rows[0];
      if (!op || op.state !== "running") return { type: "idle" };
      // Whoever it acts for may have lost the permission since (a token expiring says nothing
      // when it happens); a disable, role change or revoke paused it already, in its own change.
      const { lost, grants } = await operationAuthority(tx, op.authorityActor, op.action, op.domains);
      if (lost) {
        await appendDecision(tx, await pauseForLostAuthority(tx, op.id, op.state, lost));
        return { type: "idle" };
      }
      if (op.startsIn > 0) return { type: "wait", ms: Math.ceil(op.startsIn * 1000) };
      const entries: DecisionEntry[] = [];
      if (canaryReached(op)) {
        await stopForCanary(tx, op, entries);
        for (const entry of entries) await appendDecision(tx, entry);
        return { type: "idle" };
      }
      let windowDispatched = op.windowDispatched;
      let allowed = Math.floor(op.ratePerSecond * op.elapsed) + 1;
      if (allowed - windowDispatched > burstCap(op.ratePerSecond)) {
        // Far behind (a restart, a stall): a new window, starting with one record now.
        await tx.$executeRaw`
          UPDATE bulk_operations SET window_started_at = now(), window_dispatched = 0 WHERE id = ${op.id}::uuid`;
        windowDispatched = 0;
        allowed = 1;
      } else if (windowDispatched >= allowed) {
        const ms = (windowDispatched / op.ratePerSecond - op.elapsed) * 1000;
        return { type: "wait", ms: Math.max(1, Math.ceil(ms)) };
      }
      // As many as the rate allows now, within the batch size and what is left of the canary.
      const canaryLeft = op.canarySize > 0 && !op.canaryPassed ? op.canarySize - op.dispatched : Infinity;
      const budget = Math.max(
        1,
        Math.min(allowed - windowDispatched, op.action === "cancel" ? 1 : maxItems, canaryLeft),
      );
      const items = await tx.$queryRaw<BatchItem[]>`
        SELECT position, review_id::text AS "reviewId", frozen_version AS "frozenVersion" FROM bulk_operation_items
         WHERE operation_id = ${op.id}::uuid AND state = 'pending' ORDER BY position LIMIT ${budget}
         FOR UPDATE`;
      if (items.length === 0) {
        for (const entry of await completeIfDone(tx, op.id)) await appendDecision(tx, entry);
        return { type: "idle" };
      }
      // It acts with its authority's grants as they are now: each record is checked in its domain.
      const actor = systemActor({
        kind: "user",
        id: `operation:${op.id}`,
        label: op.createdBy,
        role: op.createdRole,
        grants,
      });
      const { results, entries: recordEntries } = await actOnItems(tx, op, items, actor);
      const done = results.filter((r) => r.ok);
      // Refused ones are skipped: the record changed since the freeze, or the action no longer
      // fits it. A bulk operation never overrides what someone decided for one record meanwhile.
      const positions = results.map((r) => r.position);
      const states = results.map((r) => (r.ok ? (op.action === "replay" ? "dispatched" : "done") : "skipped"));
      const replayIds = results.map((r) => (r.ok ? r.replayId : null));
      const details = results.map((r) => (r.ok ? null : r.detail));
      await tx.$executeRaw`
        UPDATE bulk_operation_items i
           SET state = r.state::"OperationItemState", replay_id = r.replay_id, detail = r.detail, updated_at = now()
          FROM unnest(${positions}::int[], ${states}::text[], ${replayIds}::uuid[], ${details}::text[])
               AS r(position, state, replay_id, detail)
         WHERE i.operation_id = ${op.id}::uuid AND i.position = r.position`;
      if (done.length > 0) {
        await tx.$executeRaw`
          UPDATE bulk_operations SET dispatched = dispatched + ${done.length},
                 window_dispatched = ${windowDispatched + done.length}, updated_at = now()
           WHERE id = ${op.id}::uuid`;
        op.dispatched += done.length;
        if (canaryReached(op)) await stopForCanary(tx, op, entries);
      }
      if (op.action !== "replay" || done.length < results.length) entries.push(...(await completeIfDone(tx, op.id)));
      // The decision-log entries last: from the first append until commit, other appends wait.
      await appendBatchEntries(tx, recordEntries, actor, op.reason);
      for (const entry of entries) await appendDecision(tx, entry);
      return { type: done.length > 0 ? "dispatched" : "skipped" };
    },
    { timeout: 30_000 },
  );
}

/**
 * Replays and notes go in set-based batches (lib/operations/batch-actions.ts), whose log entries
 * the caller appends last. A cancel goes one record per transaction through the single action
 * itself: it takes the key's sequence lock, which a batch would hold across records, and it
 * appends its own entry (the rows written after it are locked by this transaction already: the
 * operation's row and the item's, so nothing waits while the chain's head is held).
 */
async function actOnItems(tx: Tx, op: DueOperation, items: BatchItem[], actor: Actor): Promise<BatchOutcome> {
  if (op.action === "replay") return replayBatch(tx, op.id, items, actor, op.reason);
  if (op.action === "note") return noteBatch(tx, op.id, items, actor, op.reason);
  const results: BatchResult[] = [];
  for (const item of items) results.push(await actOnRecord(tx, op, item, actor));
  return { results, entries: [] };
}

function canaryReached(op: DueOperation): boolean {
  return op.canarySize > 0 && !op.canaryPassed && op.dispatched >= op.canarySize;
}

async function stopForCanary(tx: Tx, op: DueOperation, entries: DecisionEntry[]): Promise<void> {
  await tx.$executeRaw`
    UPDATE bulk_operations SET state = 'awaiting-continue', version = version + 1, updated_at = now()
     WHERE id = ${op.id}::uuid`;
  entries.push({
    actor: OPERATIONS_ACTOR,
    action: "operation.canary-reached",
    reason: `the first ${op.canarySize} records were dispatched; an owner continues after checking their outcomes`,
    details: { operationId: op.id, canarySize: op.canarySize },
  });
}

/**
 * The record's action, as its single-record endpoint takes it, inside a savepoint: a refusal
 * (found before or after the action began writing) rolls back only this record, which is skipped
 * with the refusal's code and message.
 */
async function actOnRecord(tx: Tx, op: DueOperation, item: BatchItem, actor: Actor): Promise<BatchResult> {
  await tx.$executeRaw`SAVEPOINT operation_item`;
  try {
    const outcome = await performActionInTx(
      tx,
      item.reviewId,
      { action: op.action, expectedVersion: item.frozenVersion, reason: op.reason, checkDone: true },
      actor,
      { operationId: op.id },
    );
    await tx.$executeRaw`RELEASE SAVEPOINT operation_item`;
    return { position: item.position, ok: true, replayId: outcome.replayId ?? null };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT operation_item`;
    return { position: item.position, ok: false, detail: `${error.code}: ${error.message}` };
  }
}

/** How long one operation may keep the dispatcher before the next due one gets its turn. */
const TURN_MS = 500;
/** After a failed round, an operation waits this long before its next one (others go on). */
const FAILED_BACKOFF_MS = 2000;
const failedUntil = new Map<string, number>();

/**
 * One round over the operations that are running: each dispatches what its rate allows now (for
 * at most TURN_MS). An operation whose round fails (a deadlock PostgreSQL broke, a lost
 * connection) is logged and skipped for a moment; the others go on. Returns how long until
 * something is due again (capped by the caller).
 */
export async function dispatchDue(): Promise<number> {
  const due = await db().$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM bulk_operations WHERE state = 'running' ORDER BY seq`;
  let soonest = Number.POSITIVE_INFINITY;
  for (const { id } of due) {
    if ((failedUntil.get(id) ?? 0) > Date.now()) continue;
    const turnEnds = Date.now() + TURN_MS;
    try {
      for (;;) {
        const step = await dispatchStep(id);
        if (step.type === "wait") {
          soonest = Math.min(soonest, step.ms);
          break;
        }
        if (step.type === "idle") break;
        if (Date.now() >= turnEnds) {
          soonest = 0;
          break;
        }
      }
      failedUntil.delete(id);
    } catch (err) {
      log.error({ err, operationId: id }, "operations dispatcher: a round of this operation failed; retrying");
      failedUntil.set(id, Date.now() + FAILED_BACKOFF_MS);
    }
  }
  return soonest;
}

export interface DispatcherOptions {
  signal: AbortSignal;
  /** The longest sleep between rounds (ms). */
  tickMs?: number;
  /** How often ready records of kinds with automatic replay on are looked for (ms). */
  autoReplayMs?: number;
}

/**
 * The console's dispatcher: operations in one loop, ready records of kinds with auto-replay on
 * in another, so neither holds the other up.
 */
export async function runDispatcher({ signal, tickMs = 200, autoReplayMs = 1000 }: DispatcherOptions): Promise<void> {
  await Promise.all([dispatchLoop(signal, tickMs), autoReplayLoop(signal, autoReplayMs)]);
}

async function dispatchLoop(signal: AbortSignal, tickMs: number): Promise<void> {
  const backoff = new FailureBackoff();
  while (!signal.aborted) {
    let wait = tickMs;
    try {
      wait = Math.min(tickMs, await dispatchDue());
      backoff.succeeded();
    } catch (err) {
      wait = backoff.failed();
      log.error(
        { err, failures: backoff.failures, retryInMs: wait },
        "operations dispatcher: a round failed; retrying",
      );
    }
    if (wait > 0) await sleep(wait, signal);
  }
}

async function autoReplayLoop(signal: AbortSignal, everyMs: number): Promise<void> {
  const backoff = new FailureBackoff(everyMs);
  while (!signal.aborted) {
    let wait = everyMs;
    try {
      await autoReplayReady();
      backoff.succeeded();
    } catch (err) {
      wait = backoff.failed();
      log.error(
        { err, failures: backoff.failures, retryInMs: wait },
        "automatic replay of ready records failed; retrying",
      );
    }
    await sleep(wait, signal);
  }
}
