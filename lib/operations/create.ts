import type { Actor } from "@/lib/auth/actor";
import { actorRef } from "@/lib/auth/actor-ref";
import { can } from "@/lib/auth/roles";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { forbidden, Refusal, unprocessable } from "@/lib/domain/refusal";
import { countDecisions } from "@/lib/metrics/decisions";
import { Prisma } from "@/lib/generated/prisma/client";
import { reviewFilterSql } from "@/lib/reviews/filter-sql";
import {
  type CreateOperationRequest,
  DEFAULT_AUTO_PAUSE,
  DEFAULT_RATE,
  GROUP_STATUSES,
  MAX_SELECTION,
  type SelectionInput,
} from "./schema";
import { resolveSelection } from "./selection";
import type { OperationAction } from "./types";

/** The permission an operation's action needs, for creating it and for every control. */
export function operationPermission(action: OperationAction) {
  return action === "note" ? ("reviews.note" as const) : ("reviews.resolve" as const);
}

/** The condition on `review_records` that selects the records of a (resolved) selection. */
export function selectionCondition(selection: SelectionInput): Prisma.Sql {
  switch (selection.type) {
    case "ids":
      return Prisma.sql`id = ANY(${selection.ids}::uuid[])`;
    case "filter": {
      const { assignee, ...filter } = selection.filter;
      const conditions = [reviewFilterSql(filter)];
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
  }
}

/**
 * Freezes the selection into items, in dispatch order: oldest record first, except that the
 * sequences of one sequenceKey are laid over that key's positions in ascending order (a key's
 * replays are then dispatched in sequence order, wherever its records sit in the list). One
 * statement; its LIMIT is one past the maximum, so an oversized selection is seen and refused.
 */
function freezeSql(selection: SelectionInput, operationId: string): Prisma.Sql {
  return Prisma.sql`
WITH sel AS (
  SELECT id, seq, version, sequence_key, sequence, effect_key FROM review_records
   WHERE ${selectionCondition(selection)}
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
 * POST /api/v1/operations: creates the operation `planned`, its selection frozen, with one
 * decision-log entry for the operation and one per record, all in one transaction.
 */
export async function createOperation(asked: CreateOperationRequest, actor: Actor): Promise<string> {
  if (!can(actor.role, operationPermission(asked.action))) {
    throw forbidden("forbidden", `role ${actor.role} may not ${asked.action} records`);
  }
  // What is frozen, stored and logged: `assignee: me` as the creator's id.
  const request = {
    ...asked,
    selection: resolveSelection(asked.selection, actor.kind === "user" ? { id: actor.id } : null),
  };
  const autoPause =
    request.autoPause === undefined ? (request.action === "replay" ? DEFAULT_AUTO_PAUSE : null) : request.autoPause;
  return db().$transaction(
    async (tx) => {
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
      const total = await tx.$executeRaw(freezeSql(request.selection, op.id));
      // Ids that name no record are a 422 naming them, even when none of them exists.
      if (
        request.selection.type === "ids" &&
        total < new Set(request.selection.ids.map((id) => id.toLowerCase())).size
      ) {
        const missing = await tx.$queryRaw<{ id: string }[]>`
          SELECT u.id::text AS id FROM unnest(${request.selection.ids}::uuid[]) AS u(id)
           WHERE NOT EXISTS (SELECT 1 FROM review_records r WHERE r.id = u.id) LIMIT 20`;
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
      await tx.bulkOperation.update({ where: { id: op.id }, data: { total } });
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
      return op.id;
    },
    { timeout: 120_000 },
  );
}
