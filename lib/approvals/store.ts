import { type Actor, domainOfColumn, may } from "@/lib/access";
import type { Permission } from "@/lib/access/client";
import { appendDecision } from "@/lib/audit";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/client";
import type { ApprovalDecision, ApprovalStatus } from "./schema";
import type { ApprovalView } from "./view";

/** Who runs the expiry: the system, not a person. */
export const APPROVALS_SYSTEM = "system:approvals";

export type ApprovalRow = Prisma.ApprovalRequestGetPayload<object>;

/** What an approval request is about, as the approvals' decision-log entries say it. */
function decisionDetails(row: ApprovalRow): Prisma.InputJsonObject {
  const request = row.request as Record<string, unknown>;
  return {
    action: row.decision === "operation" ? "operation" : row.decision,
    ...(row.decision === "operation" ? { operationAction: String(request.action) } : {}),
    ...(row.reviewId ? { reviewId: row.reviewId } : {}),
    ...(row.operationId ? { operationId: row.operationId } : {}),
    ...(row.records !== null ? { records: row.records } : {}),
  };
}

/** The details every approval.* entry carries (webhooks read them). */
export function approvalLogDetails(row: ApprovalRow, extra: Prisma.InputJsonObject = {}): Prisma.InputJsonObject {
  return {
    approvalId: row.id,
    domain: row.domain,
    ...(row.domain === null && domainNames(row).length > 0 ? { domains: domainNames(row) } : {}),
    decision: decisionDetails(row),
    requestedBy: row.requestedBy,
    ...(row.decidedBy ? { decidedBy: row.decidedBy } : {}),
    expiresAt: row.expiresAt.toISOString(),
    ...extra,
  };
}

/** The domain names a request spans (a JSON array in the row). */
export function domainNames(row: Pick<ApprovalRow, "domains">): string[] {
  return Array.isArray(row.domains) ? row.domains.filter((d): d is string => typeof d === "string") : [];
}

/**
 * The domains the approver must hold the permission in: one, several, or none (global only). An
 * operation's records in no domain are listed as NO_DOMAIN and read as null here: a request that
 * includes any needs a global approver.
 */
export function domainsOf(row: Pick<ApprovalRow, "domain" | "domains">): (string | null)[] {
  if (row.domain !== null) return [row.domain];
  const names = domainNames(row);
  return names.length > 0 ? names.map(domainOfColumn) : [null];
}

/**
 * Whether the viewer may see the request at all (ADR 0030): it reads the records of every domain
 * the decision touches, as the records themselves would be read; a request of records in no
 * domain is for global readers only.
 */
export function mayView(row: Pick<ApprovalRow, "domain" | "domains">, actor: Actor): boolean {
  return may(actor, "reviews.read", { domains: domainsOf(row) });
}

/**
 * Same person or token, compared by id, never by label; and the person behind a token is its
 * token's requester too: nobody approves what they filed with their own token.
 */
export function isRequester(
  row: Pick<ApprovalRow, "requestedByKind" | "requestedById" | "requestedPersonId">,
  actor: Actor,
): boolean {
  if (row.requestedByKind === actor.kind && row.requestedById === actor.id) return true;
  const person = actor.person ?? (actor.kind === "user" ? actor.id : null);
  return person !== null && row.requestedPersonId === person;
}

export function mayDecide(row: ApprovalRow, actor: Actor): boolean {
  if (actor.kind !== "user" || isRequester(row, actor)) return false;
  return may(actor, row.permission as Permission, { domains: domainsOf(row) });
}

/** What an approver of a bulk operation reads besides its count: the selection and its settings. */
function operationRequestOf(request: Record<string, unknown>): NonNullable<ApprovalView["operationRequest"]> {
  const numberOrNull = (value: unknown) => (typeof value === "number" ? value : null);
  return {
    selection: request.selection ?? null,
    runAt: typeof request.runAt === "string" ? request.runAt : null,
    ratePerSecond: numberOrNull(request.ratePerSecond),
    canarySize: numberOrNull(request.canarySize),
  };
}

export function toView(row: ApprovalRow, viewer?: Actor): ApprovalView {
  const request = row.request as Record<string, unknown>;
  return {
    id: row.id,
    status: row.status as ApprovalStatus,
    decision: row.decision as ApprovalDecision,
    action: row.decision,
    operationAction: row.decision === "operation" ? String(request.action) : null,
    permission: row.permission,
    domain: row.domain,
    domains: domainNames(row),
    reviewId: row.reviewId,
    expectedVersion: row.expectedVersion,
    records: row.records,
    reason: row.reason,
    requestedBy: row.requestedBy,
    decidedBy: row.decidedBy,
    decidedReason: row.decidedReason,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    problem: row.problem,
    operationId: row.operationId,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    canDecide: row.status === "pending" && viewer !== undefined && mayDecide(row, viewer),
    operationRequest: row.decision === "operation" ? operationRequestOf(request) : null,
  };
}

export interface NewApproval {
  decision: ApprovalDecision;
  permission: Permission;
  domain: string | null;
  domains: string[];
  reviewId: string | null;
  effectKey?: string | null;
  expectedVersion: number | null;
  records: number | null;
  request: Prisma.InputJsonObject;
  reason: string;
  expiresAfterSeconds: number;
}

/** Stores the request and its `approval.requested` entry, in the caller's transaction. */
export async function storeApproval(tx: Tx, approval: NewApproval, requester: Actor): Promise<ApprovalRow> {
  const row = await tx.approvalRequest.create({
    data: {
      decision: approval.decision,
      permission: approval.permission,
      domain: approval.domain,
      domains: approval.domains,
      reviewId: approval.reviewId,
      expectedVersion: approval.expectedVersion,
      records: approval.records,
      request: approval.request,
      reason: approval.reason,
      requestedBy: requester.label,
      requestedByKind: requester.kind,
      requestedById: requester.id,
      requestedRole: requester.role,
      requestedPersonId: requester.person ?? (requester.kind === "user" ? requester.id : null),
      expiresAt: new Date(Date.now() + approval.expiresAfterSeconds * 1000),
    },
  });
  await appendDecision(tx, {
    actor: requester.label,
    actorRole: requester.role,
    action: "approval.requested",
    reviewId: approval.reviewId,
    effectKey: approval.effectKey ?? null,
    reason: approval.reason,
    details: approvalLogDetails(row),
  });
  return row;
}

/**
 * Marks pending requests past their expiry `expired`, each with its `approval.expired` entry, in
 * one transaction. `reviewId` limits it to one record's. Lazily before reads and requests, and
 * periodically by the console's dispatcher.
 */
export async function expireOverdue(tx: Tx, options: { reviewId?: string; ids?: string[] } = {}): Promise<number> {
  const overdue = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM approval_requests
     WHERE status = 'pending' AND expires_at <= now()
       AND (${options.reviewId ?? null}::uuid IS NULL OR review_id = ${options.reviewId ?? null}::uuid)
       AND (${options.ids ?? null}::uuid[] IS NULL OR id = ANY(${options.ids ?? null}::uuid[]))
     ORDER BY expires_at FOR UPDATE SKIP LOCKED`;
  for (const { id } of overdue) {
    const row = await tx.approvalRequest.update({
      where: { id },
      data: { status: "expired", decidedAt: new Date() },
    });
    await appendDecision(tx, {
      actor: APPROVALS_SYSTEM,
      action: "approval.expired",
      reviewId: row.reviewId,
      reason: `nobody approved it before ${row.expiresAt.toISOString()}`,
      details: approvalLogDetails(row),
    });
  }
  return overdue.length;
}
