import { type Actor, NO_DOMAIN } from "@/lib/access";
import type { Prisma } from "@/lib/generated/prisma/client";
import { operationPermission, type OperationApprovalGate } from "@/lib/operations";
import { ACTION_RULES } from "@/lib/reviews";
import type { ActionApprovalGate } from "@/lib/actions/perform-action";
import {
  pendingRequestRefusal,
  refuseDuplicateOperationRequest,
  effectivePolicy,
  isApprovableAction,
  expireOverdue,
  storeApproval,
  toView,
} from "@/lib/approvals";
import type { Tx } from "@/lib/db/client";

async function domainOfKind(tx: Tx, kind: string | null): Promise<string | null> {
  const rows = await tx.$queryRaw<{ domain: string | null }[]>`SELECT domain_of_kind(${kind}) AS domain`;
  return rows[0]?.domain ?? null;
}

interface RecordHold {
  domain: string | null;
  expiresAfterSeconds: number;
}

/**
 * POST /api/v1/reviews/{id}/actions: cancel, confirm-applied and skip-gap wait for a second person
 * when the record's domain (domain_of_kind) has a policy for them, else the default policy does.
 */
export function recordApprovalGate(requester: Actor): ActionApprovalGate {
  return {
    async needed(tx, record, request) {
      if (!isApprovableAction(request.action)) return null;
      const domain = await domainOfKind(tx, record.kind);
      const policy = await effectivePolicy(tx, request.action, domain);
      if (!policy) return null;
      // Under the record's row lock, so two requests for one record cannot both be stored.
      await expireOverdue(tx, { reviewId: record.id });
      const waiting = await pendingRequestRefusal(tx, record.id, request.action);
      if (waiting) throw waiting;
      return { domain, expiresAfterSeconds: policy.expiresAfterSeconds } satisfies RecordHold;
    },
    async hold(tx, record, request, needed) {
      const { domain, expiresAfterSeconds } = needed as RecordHold;
      const row = await storeApproval(
        tx,
        {
          decision: request.action as "cancel",
          permission: ACTION_RULES[request.action].permission,
          domain,
          domains: domain ? [domain] : [],
          reviewId: record.id,
          effectKey: record.effectKey,
          expectedVersion: request.expectedVersion,
          records: null,
          request: request as Prisma.InputJsonObject,
          reason: request.reason,
          expiresAfterSeconds,
        },
        requester,
      );
      return toView(row, requester);
    },
  };
}

interface OperationHold {
  domain: string | null;
  domains: string[];
  expiresAfterSeconds: number;
}

/**
 * POST /api/v1/operations: an operation waits when, for some domain of its frozen selection, the
 * domain's operation policy (else the default) applies to that domain's share of the records:
 * always (no count), or above its count. A policy of `payments` never holds back `messaging` records.
 */
export function operationApprovalGate(requester: Actor): OperationApprovalGate {
  return {
    async needed(tx, operationId) {
      const groups = await tx.$queryRaw<{ domain: string | null; records: number }[]>`
        SELECT domain_of_kind(r.kind) AS domain, count(*)::int AS records
          FROM bulk_operation_items i JOIN review_records r ON r.id = i.review_id
         WHERE i.operation_id = ${operationId}::uuid GROUP BY 1`;
      const [op] = await tx.$queryRaw<{ action: string }[]>`
        SELECT action::text AS action FROM bulk_operations WHERE id = ${operationId}::uuid`;
      let expiresAfterSeconds: number | null = null;
      for (const group of groups) {
        const policy = await effectivePolicy(tx, "operation", group.domain);
        if (policy && (policy.minRecords === null || group.records > policy.minRecords)) {
          expiresAfterSeconds = Math.min(expiresAfterSeconds ?? Infinity, policy.expiresAfterSeconds);
        }
        // A per-record policy of the action holds back the operation that would take it, however
        // few records it has: one person's bulk cancel of one record is still one person's cancel.
        const perRecord = isApprovableAction(op!.action) ? await effectivePolicy(tx, op!.action, group.domain) : null;
        if (perRecord) expiresAfterSeconds = Math.min(expiresAfterSeconds ?? Infinity, perRecord.expiresAfterSeconds);
      }
      if (expiresAfterSeconds === null) return null;
      // Records in no domain are named too (NO_DOMAIN): then only a global approver may approve.
      const domains = groups.map((g) => g.domain ?? NO_DOMAIN).sort();
      const single = groups.length === 1 ? (groups[0]!.domain ?? null) : null;
      return { domain: single, domains, expiresAfterSeconds } satisfies OperationHold;
    },
    async hold(tx, request, total, needed) {
      await refuseDuplicateOperationRequest(tx, request);
      const { domain, domains, expiresAfterSeconds } = needed as OperationHold;
      const row = await storeApproval(
        tx,
        {
          decision: "operation",
          permission: operationPermission(request.action),
          domain,
          domains,
          reviewId: null,
          expectedVersion: null,
          records: total,
          request: request as Prisma.InputJsonObject,
          reason: request.reason,
          expiresAfterSeconds,
        },
        requester,
      );
      return toView(row, requester);
    },
  };
}
