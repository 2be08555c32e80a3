import type { ApprovalView } from "@/lib/approvals";
import {
  ALL_RECORDS,
  type Actor,
  grantsOf,
  actorRef,
  canAnywhere,
  domainsRefused,
  NO_DOMAIN,
  type RecordScope,
  recordScope,
  scopeCondition,
} from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { forbidden, Refusal, unprocessable } from "@/lib/domain/refusal";
import { countDecisions } from "@/lib/metrics/decisions";
import { Prisma } from "@/lib/generated/prisma/client";
import { reviewFilterSql } from "@/lib/reviews";
import {
  type CreateOperationRequest,
  DEFAULT_AUTO_PAUSE,
  DEFAULT_RATE,
  GROUP_STATUSES,
  MAX_SELECTION,
  type SelectionInput,
} from "./schema";
import { UNFINISHED_ITEM_STATES } from "./outcome";
import { resolveSelection } from "./selection";
import { checkStartAgain } from "./start-again";
import type { OperationAction } from "./types";

/** The permission an operation's action needs, for creating it and for every control. */
export function operationPermission(action: OperationAction) {
  return action === "note" ? ("reviews.note" as const) : ("reviews.resolve" as const);
}

/**
 * The condition on `review_records` that selects the records of a (resolved) selection. `scope`:
 * the caller's records, among which a filter's `q` decides its search mode (the caller still
 * adds scopeCondition to keep the selection within it).
 */
export function selectionCondition(selection: SelectionInput, scope: RecordScope = ALL_RECORDS): Prisma.Sql {
  switch (selection.type) {
    case "ids":
      return Prisma.sql`id = ANY(${selection.ids}::uuid[])`;
    case "filter": {
      const { assignee, ...filter } = selection.filter;
      const conditions = [reviewFilterSql(filter, undefined, undefined, scope)];
      // resolveSelection (./selection.ts) has replaced `me` by the creator's id before this.
      if (assignee === "me") throw new Error("selectionCondition: resolve `assignee: me` first (resolveSelection)");
      if (assignee === "none") conditions.push(Prisma.sql`assignee_id IS NULL`);
      else if (assignee !== undefined) conditions.push(Prisma.sql`assignee_id = ${assignee}::uuid`);
      return Prisma.join(conditions, " AND ");
    }
    case "group": {
      const { kind, reason, errorClass } = selection.group;
      return Prisma.join(
        [
          Prisma.sql`status = ANY(${GROUP_STATUSES}::"ReviewStatus"[])`,
          Prisma.sql`reason = ${reason}`,
          kind === null ? Prisma.sql`kind IS NULL` : Prisma.sql`kind = ${kind}`,
          errorClass === null ? Prisma.sql`error_class IS NULL` : Prisma.sql`error_class = ${errorClass}`,
        ],
        " AND ",
      );
    }
    case "unfinished":
      // What it did not finish, whatever became of the records since (the dry run reads that).
      return Prisma.sql`id IN (SELECT review_id FROM bulk_operation_items
                                 WHERE operation_id = ${selection.operationId}::uuid
                                   AND state = ANY(${UNFINISHED_ITEM_STATES}::"OperationItemState"[]))`;
  }
}

/**
 * Freezes the selection into items, in dispatch order: oldest record first, except that the
 * sequences of one sequenceKey are laid over that key's positions in ascending order (a key's
 * replays are then dispatched in sequence order, wherever its records sit in the list). One
 * statement; its LIMIT is one past the maximum, so an oversized selection is seen and refused.
 */
function freezeSql(selection: SelectionInput, operationId: string, scope: RecordScope): Prisma.Sql {
  return Prisma.sql`
WITH sel AS (
  SELECT id, seq, version, sequence_key, sequence, effect_key FROM review_records
   WHERE ${selectionCondition(selection, scope)} ${scopeCondition(scope)}
   ORDER BY seq LIMIT ${MAX_SELECTION + 1}
), numbered AS (
  SELECT sel.*, row_number() OVER (ORDER BY seq) AS pos,
         row_number() OVER (PARTITION BY sequence_key ORDER BY seq) AS key_slot,
         row_number() OVER (PARTITION BY sequence_key ORDER BY sequence NULLS LAST, seq) AS key_rank
    FROM sel
)
INSERT INTO bulk_operation_items (operation_id, position, review_id, frozen_version, sequence_key, sequence, effect_key)
SELECT ${operationId}::uuid, n.pos, n.id, n.version, n.sequence_key, n.sequence, n.effect_key
  FROM numbered n WHERE n.sequence_key IS NULL
UNION ALL
SELECT ${operationId}::uuid, slot.pos, n.id, n.version, n.sequence_key, n.sequence, n.effect_key
  FROM numbered n JOIN numbered slot ON slot.sequence_key = n.sequence_key AND slot.key_slot = n.key_rank`;
}

/**
 * The domains of the frozen records' kinds (NO_DOMAIN for records in none): the distinct kinds
 * first, so domain_of_kind runs once per kind, not once per record.
 */
async function frozenDomains(tx: Prisma.TransactionClient, operationId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ domain: string }[]>`
    SELECT DISTINCT COALESCE(public.domain_of_kind(k.kind), ${NO_DOMAIN}) AS domain
      FROM (SELECT DISTINCT r.kind FROM bulk_operation_items i JOIN review_records r ON r.id = i.review_id
             WHERE i.operation_id = ${operationId}::uuid) k
     ORDER BY 1`;
  return rows.map((r) => r.domain);
}

/**
 * POST /api/v1/operations: creates the operation `planned`, its selection frozen, with one
 * decision-log entry for the operation and one per record, all in one transaction.
 *
 * Domains (ADR 0030): the selection is read within the records the creator may see (a record of
 * another domain is not there for them: an id of one is an unknown record); when what it then
 * holds includes records of a domain where they may not take the action, it is refused (403
 * naming those domains), never silently narrowed.
 */
export async function createOperation(request: CreateOperationRequest, actor: Actor): Promise<string> {
  const created = await createOrHoldOperation(request, actor, {});
  if ("approval" in created) throw new Error("an operation without an approval gate was held back");
  return created.operationId;
}

/** Four eyes (lib/approvals): what holds an operation back for a second person. */
export interface OperationApprovalGate {
  /** Given the frozen selection (in the transaction), whether it must wait; null: create it now. */
  needed(tx: Prisma.TransactionClient, operationId: string, total: number): Promise<object | null>;
  /** Stores the request in the operation's place (the operation was rolled back). */
  hold(
    tx: Prisma.TransactionClient,
    request: CreateOperationRequest,
    total: number,
    needed: object,
  ): Promise<ApprovalView>;
}

export interface CreateOptions {
  approvalGate?: OperationApprovalGate;
  /** The operation is created because a second person approved it: both names go to the log. */
  approved?: { approvalId: string; requestedBy: string; approvedBy: string };
}

/** createOperation, or with a gate the approval request standing in for it. */
export async function createOrHoldOperation(
  request: CreateOperationRequest,
  actor: Actor,
  options: CreateOptions,
): Promise<{ operationId: string } | { approval: ApprovalView }> {
  return db().$transaction((tx) => createOperationInTx(tx, request, actor, options), { timeout: 120_000 });
}

/** The whole creation in the caller's transaction (an approval runs it in its own). */
export async function createOperationInTx(
  tx: Prisma.TransactionClient,
  asked: CreateOperationRequest,
  actor: Actor,
  options: CreateOptions = {},
): Promise<{ operationId: string } | { approval: ApprovalView }> {
  const grants = grantsOf(actor);
  const permission = operationPermission(asked.action);
  if (!canAnywhere(grants, permission)) {
    throw forbidden("forbidden", `role ${actor.role} may not ${asked.action} records`);
  }
  // What is frozen, stored, held for approval and logged: `assignee: me` as the creator's id
  // (an approved request runs as its requester, so `me` never becomes the approver).
  const request = {
    ...asked,
    selection: resolveSelection(asked.selection, actor.kind === "user" ? { id: actor.id } : null),
  };
  const scope = await recordScope(grants, "reviews.read");
  await checkStartAgain(tx, request.selection);
  const autoPause =
    request.autoPause === undefined ? (request.action === "replay" ? DEFAULT_AUTO_PAUSE : null) : request.autoPause;
  // The selection is frozen (and checked) before anyone knows whether it must wait; held back,
  // it is undone to here and only the request stays.
  if (options.approvalGate) await tx.$executeRaw`SAVEPOINT operation_approval`;
  const op = await tx.bulkOperation.create({
    data: {
      action: request.action,
      reason: request.reason,
      selection: request.selection as Prisma.InputJsonObject,
      total: 0,
      createdBy: actor.label,
      createdRole: actor.role,
      // It runs on its creator's authority until someone else confirms or resumes it.
      authorityActor: actorRef(actor),
      runAt: request.runAt ? new Date(request.runAt) : null,
      ratePerSecond: request.ratePerSecond ?? DEFAULT_RATE,
      canarySize: request.canarySize ?? 0,
      canaryPassed: !request.canarySize,
      autoPauseThreshold: autoPause?.threshold ?? null,
      autoPauseMinOutcomes: autoPause?.minOutcomes ?? DEFAULT_AUTO_PAUSE.minOutcomes,
    },
    select: { id: true },
  });
  const total = await tx.$executeRaw(freezeSql(request.selection, op.id, scope));
  // Ids that name no record are a 422 naming them, even when none of them exists.
  if (request.selection.type === "ids" && total < new Set(request.selection.ids.map((id) => id.toLowerCase())).size) {
    const missing = await tx.$queryRaw<{ id: string }[]>`
      SELECT u.id::text AS id FROM unnest(${request.selection.ids}::uuid[]) AS u(id)
       WHERE NOT EXISTS (SELECT 1 FROM review_records r WHERE r.id = u.id ${scopeCondition(scope, Prisma.sql`r`)})
       LIMIT 20`;
    throw unprocessable("unknown-records", `no review record ${missing.map((m) => m.id).join(", ")}`, {
      issues: missing.map((m) => ({ path: "selection.ids", message: `no review record ${m.id}` })),
    });
  }
  if (total === 0) throw unprocessable("empty-selection", "the selection matches no records");
  if (total > MAX_SELECTION) {
    throw unprocessable(
      "selection-too-large",
      `the selection matches more than ${MAX_SELECTION} records; narrow it (by cause, kind or time)`,
    );
  }
  if (request.canarySize && request.canarySize > total) {
    throw new Refusal("invalid", "invalid-request", `canarySize: at most the ${total} selected records`, {
      issues: [{ path: "canarySize", message: `must be at most ${total}, the number of selected records` }],
    });
  }
  // Refused before it could wait: a request nobody could approve into running is not stored.
  const domains = await frozenDomains(tx, op.id);
  const refused = domainsRefused(grants, permission, domains);
  if (refused.length > 0) {
    const named = refused.map((d) => (d === NO_DOMAIN ? "records in no domain" : d)).join(", ");
    throw forbidden("forbidden", `role ${actor.role} may not ${request.action} records of ${named}`, {
      details: { permission, domains: refused },
    });
  }
  const held = options.approvalGate ? await options.approvalGate.needed(tx, op.id, total) : null;
  if (held) {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT operation_approval`;
    return { approval: await options.approvalGate!.hold(tx, request, total, held) };
  }
  await tx.bulkOperation.update({ where: { id: op.id }, data: { total, domains } });
  await appendDecision(tx, {
    actor: actor.label,
    actorRole: actor.role,
    action: "operation.created",
    reason: request.reason,
    details: {
      operationId: op.id,
      action: request.action,
      selection: request.selection as Prisma.InputJsonObject,
      total,
      runAt: request.runAt ?? null,
      ratePerSecond: request.ratePerSecond ?? DEFAULT_RATE,
      canarySize: request.canarySize ?? 0,
      autoPause: autoPause ? { ...autoPause } : null,
      ...(options.approved ? { approval: options.approved } : {}),
    },
  });
  // One entry per frozen record, in one statement (the chain's trigger hashes each in order).
  const selected = await tx.$executeRaw`
    INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details)
    SELECT ${actor.label}, ${actor.role}, 'operation.record-selected', i.review_id, i.effect_key, ${request.reason},
           jsonb_build_object('operationId', ${op.id}::text, 'action', ${request.action}::text,
                              'position', i.position, 'version', i.frozen_version)
      FROM bulk_operation_items i WHERE i.operation_id = ${op.id}::uuid ORDER BY i.position`;
  countDecisions(tx, "operation.record-selected", selected);
  return { operationId: op.id };
}
