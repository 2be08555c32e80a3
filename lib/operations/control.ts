import { type Actor, grantsOf, actorRef, canAnywhere, domainsRefused, operationScopeCondition } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, forbidden, notFound } from "@/lib/domain/refusal";
import { countDecisions } from "@/lib/metrics/decisions";
import type { Prisma } from "@/lib/generated/prisma/client";
import { operationPermission } from "./create";
import { computeDryRun, saveDryRun } from "./dry-run";
import { type ConfirmRequest, DEFAULT_AUTO_PAUSE, type ResumeRequest } from "./schema";
import { actingCount, type OperationAction, type OperationState } from "./types";

type Tx = Prisma.TransactionClient;

interface LockedOperation {
  id: string;
  action: OperationAction;
  state: OperationState;
  version: number;
  dispatched: number;
  dryRun: { at: string; counts: Record<string, number> } | null;
  domains: string[];
}

/** The states each control may start from (docs/operations.md, "The life of an operation"). */
export const CONTROL_FROM: Record<"dry-run" | "confirm" | "pause" | "resume" | "abort", OperationState[]> = {
  "dry-run": ["planned", "paused", "awaiting-continue"],
  confirm: ["planned"],
  pause: ["running", "awaiting-continue"],
  resume: ["paused", "awaiting-continue"],
  abort: ["planned", "running", "awaiting-continue", "paused"],
};

async function lockOperation(tx: Tx, id: string, actor: Actor): Promise<LockedOperation> {
  const rows = await tx.$queryRaw<LockedOperation[]>`
    SELECT id::text AS id, action::text AS action, state::text AS state, version, dispatched, dry_run AS "dryRun",
           domains
      FROM bulk_operations WHERE id = ${id}::uuid ${operationScopeCondition(grantsOf(actor))} FOR UPDATE`;
  const op = rows[0];
  // One the actor may not read (its records lie outside their domains) is not there for them.
  if (!op) throw notFound(`no operation ${id}`);
  const grants = grantsOf(actor);
  const permission = operationPermission(op.action);
  const refused = domainsRefused(grants, permission, op.domains);
  if (!canAnywhere(grants, permission) || refused.length > 0) {
    const where = refused.length > 0 ? ` in domain ${refused.join(", ")}` : "";
    throw forbidden("forbidden", `role ${actor.role} may not control a ${op.action} operation${where}`, {
      details: { operationId: id, ...(refused.length > 0 ? { domains: refused } : {}) },
    });
  }
  return op;
}

function refuseUnlessIn(op: LockedOperation, control: keyof typeof CONTROL_FROM): void {
  if (!CONTROL_FROM[control].includes(op.state)) {
    throw conflict("not-allowed", `cannot ${control} an operation that is ${op.state}`);
  }
}

/**
 * POST .../dry-run: judges the records not yet dispatched on one snapshot, then saves the
 * verdicts and counts under the operation's row lock, unless it dispatched meanwhile (then the
 * numbers no longer describe what is left: 409, run it again).
 */
export async function dryRunOperation(id: string, actor: Actor): Promise<void> {
  const op = await db().$transaction((tx) => lockOperation(tx, id, actor));
  refuseUnlessIn(op, "dry-run");
  const result = await computeDryRun(id, op.action, grantsOf(actor));
  await db().$transaction(
    async (tx) => {
      const now = await lockOperation(tx, id, actor);
      // Confirmed or aborted meanwhile: these numbers no longer describe what will happen.
      refuseUnlessIn(now, "dry-run");
      if (now.dispatched !== op.dispatched) {
        throw conflict("not-allowed", "the operation dispatched records during the dry run; run it again");
      }
      await saveDryRun(tx, id, result);
      const at = new Date();
      await tx.bulkOperation.update({
        where: { id },
        data: {
          dryRun: { at: at.toISOString(), counts: result.counts },
          dryRunAt: at,
          version: { increment: 1 },
          updatedAt: at,
        },
      });
    },
    { timeout: 120_000 },
  );
}

/**
 * An operation whose dry run acts on no record is not started: it would end "completed" having
 * done nothing, and read as a success. The 409 names what the dry run found instead.
 */
function refuseNothingToActOn(op: LockedOperation): void {
  const counts = op.dryRun?.counts ?? {};
  if (actingCount(counts) > 0) return;
  const found = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(", ");
  throw conflict(
    "nothing-to-act-on",
    `the dry run found no record this ${op.action} would act on (${found || "no records left"}); nothing was started`,
  );
}

/** POST .../confirm: starts dispatching, with the dry-run numbers the person saw. */
export async function confirmOperation(id: string, request: ConfirmRequest, actor: Actor): Promise<void> {
  await db().$transaction(async (tx) => {
    const op = await lockOperation(tx, id, actor);
    refuseUnlessIn(op, "confirm");
    // The dry run first: a newer one also moved the version, and "look at the new numbers" is
    // what the person needs to hear, not only "something changed".
    if (!op.dryRun) throw conflict("dry-run-required", "run a dry run first and confirm its numbers");
    if (new Date(op.dryRun.at).getTime() !== new Date(request.dryRunAt).getTime()) {
      throw conflict("dry-run-stale", `a newer dry run exists (${op.dryRun.at}); review its numbers`);
    }
    if (op.version !== request.expectedVersion) {
      throw conflict(
        "stale-version",
        `the operation changed (version ${op.version}, you saw ${request.expectedVersion}); review it again`,
      );
    }
    refuseNothingToActOn(op);
    // Whoever starts it answers for it from now on (lib/operations/authority.ts).
    await tx.$executeRaw`
      UPDATE bulk_operations SET state = 'running', confirmed_by = ${actor.label}, confirmed_at = now(),
             authority_actor = ${actorRef(actor)},
             window_started_at = now(), window_dispatched = 0, version = version + 1, updated_at = now()
       WHERE id = ${id}::uuid`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "operation.confirmed",
      reason: null,
      details: { operationId: id, dryRun: op.dryRun },
    });
  });
}

/**
 * POST .../pause: nothing more is dispatched and its unclaimed replays are held back. The reason
 * is optional (a pause is the emergency stop); without one, the log entry's reason is null.
 */
export async function pauseOperation(id: string, reason: string | undefined, actor: Actor): Promise<void> {
  await db().$transaction(async (tx) => {
    const op = await lockOperation(tx, id, actor);
    refuseUnlessIn(op, "pause");
    await tx.$executeRaw`
      UPDATE bulk_operations SET state = 'paused', pause_reason = ${reason ? `paused by ${actor.label}: ${reason}` : `paused by ${actor.label}`},
             version = version + 1, updated_at = now()
       WHERE id = ${id}::uuid`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "operation.paused",
      reason: reason ?? null,
      details: { operationId: id, fromState: op.state },
    });
  });
}

/**
 * POST .../resume: dispatching goes on (after a canary, this is "continue"). Auto-pause judges
 * the outcomes from here on, with the settings given (or the ones it had).
 */
export async function resumeOperation(id: string, request: ResumeRequest, actor: Actor): Promise<void> {
  const { reason } = request;
  await db().$transaction(async (tx) => {
    const op = await lockOperation(tx, id, actor);
    refuseUnlessIn(op, "resume");
    // Resuming from the canary's stop, or from any pause once the canary went out, passes it.
    const changesAutoPause = request.autoPause !== undefined;
    const threshold = request.autoPause?.threshold ?? null;
    const minOutcomes = request.autoPause?.minOutcomes ?? DEFAULT_AUTO_PAUSE.minOutcomes;
    // Whoever resumes it answers for it from now on, also after a pause for lost authority.
    await tx.$executeRaw`
      UPDATE bulk_operations SET state = 'running', pause_reason = NULL, authority_actor = ${actorRef(actor)},
             canary_passed = canary_passed OR ${op.state === "awaiting-continue"}::boolean OR dispatched >= canary_size,
             auto_pause_outcomes = 0, auto_pause_held_again = 0,
             auto_pause_threshold = CASE WHEN ${changesAutoPause}::boolean THEN ${threshold}::float8
                                         ELSE auto_pause_threshold END,
             auto_pause_min_outcomes = CASE WHEN ${changesAutoPause}::boolean THEN ${minOutcomes}::int
                                            ELSE auto_pause_min_outcomes END,
             window_started_at = now(), window_dispatched = 0, version = version + 1, updated_at = now()
       WHERE id = ${id}::uuid`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "operation.resumed",
      reason,
      details: {
        operationId: id,
        fromState: op.state,
        ...(changesAutoPause ? { autoPause: request.autoPause ? { ...request.autoPause } : null } : {}),
      },
    });
  });
}

/**
 * POST .../abort: stops for good. Records not dispatched stay as they are (`not-dispatched`);
 * replays no consumer has taken are withdrawn and their records are open again, each with its
 * history and decision-log entry; claimed replays finish and report their outcome.
 */
export async function abortOperation(id: string, reason: string, actor: Actor): Promise<void> {
  await db().$transaction(
    async (tx) => {
      const op = await lockOperation(tx, id, actor);
      refuseUnlessIn(op, "abort");
      // The records of the replays to withdraw first, in id order: a single cancel locks its
      // record before its replays, and taking the replays first here could deadlock with it.
      await tx.$executeRaw`
        SELECT 1 FROM review_records
         WHERE id IN (SELECT review_id FROM replays WHERE operation_id = ${id}::uuid AND state = 'scheduled')
         ORDER BY id FOR UPDATE`;
      await tx.$executeRaw`
        UPDATE bulk_operation_items SET state = 'not-dispatched', detail = 'the operation was aborted first',
               updated_at = now()
         WHERE operation_id = ${id}::uuid AND state = 'pending'`;
      const withdrawn = await tx.$queryRaw<{ reviewId: string; replayId: string }[]>`
        WITH cancelled AS (
          UPDATE replays SET state = 'cancelled', completed_at = now(), detail = 'withdrawn: the operation was aborted'
           WHERE operation_id = ${id}::uuid AND state = 'scheduled'
          RETURNING id, review_id
        ), items AS (
          UPDATE bulk_operation_items i SET state = 'withdrawn', detail = 'the operation was aborted before a consumer took its replay',
                 updated_at = now()
            FROM cancelled c WHERE i.operation_id = ${id}::uuid AND i.replay_id = c.id AND i.state = 'dispatched'
        ), records AS (
          UPDATE review_records rr SET status = 'open', version = version + 1, updated_at = now()
            FROM cancelled c WHERE rr.id = c.review_id AND rr.status = 'replay-scheduled'
          RETURNING rr.id, rr.effect_key, rr.version
        ), history AS (
          INSERT INTO review_history (review_id, actor, action, from_status, to_status, reason, details)
          SELECT r.id, ${actor.label}, 'replay-withdrawn', 'replay-scheduled', 'open', ${reason},
                 jsonb_build_object('operationId', ${id}::uuid::text, 'replayId', c.id::text)
            FROM records r JOIN cancelled c ON c.review_id = r.id
        )
        SELECT c.review_id::text AS "reviewId", c.id::text AS "replayId" FROM cancelled c`;
      await tx.$executeRaw`
        UPDATE bulk_operations SET state = 'aborted', finished_at = now(), pause_reason = NULL,
               version = version + 1, updated_at = now()
         WHERE id = ${id}::uuid`;
      await appendDecision(tx, {
        actor: actor.label,
        actorRole: actor.role,
        action: "operation.aborted",
        reason,
        details: { operationId: id, fromState: op.state, withdrawn: withdrawn.length },
      });
      // One entry per withdrawn replay: each record changed (back to open).
      const withdrawnEntries = await tx.$executeRaw`
        INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details)
        SELECT ${actor.label}, ${actor.role}, 'review.replay-withdrawn', rr.id, rr.effect_key, ${reason},
               jsonb_build_object('operationId', ${id}::text, 'replayId', w.replay_id, 'toStatus', 'open',
                                  'version', rr.version)
          FROM unnest(${withdrawn.map((w) => w.reviewId)}::uuid[], ${withdrawn.map((w) => w.replayId)}::text[])
               AS w(review_id, replay_id)
          JOIN review_records rr ON rr.id = w.review_id`;
      countDecisions(tx, "review.replay-withdrawn", withdrawnEntries);
    },
    { timeout: 120_000 },
  );
}
