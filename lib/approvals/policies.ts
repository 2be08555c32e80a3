import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { invalidField, notFound } from "@/lib/domain/refusal";
import type { ApprovalDecision, PolicyRemoveRequest, PolicySetRequest } from "./schema";
import { DEFAULT_EXPIRY_SECONDS } from "./schema";
import type { Tx } from "@/lib/db/client";

/** Who changes a policy: a person or token (its label and role), or the CLI (`system:cli`, no role). */
export interface ChangeBy {
  label: string;
  role: string | null;
}

export interface PolicyView {
  domain: string | null;
  decision: ApprovalDecision;
  minRecords: number | null;
  expiresAfterSeconds: number;
  updatedBy: string;
  updatedAt: string;
}

export interface EffectivePolicy {
  domain: string | null;
  minRecords: number | null;
  expiresAfterSeconds: number;
}

/** The policy for a decision in a domain: the domain's own, else the default (domain null), else none. */
export async function effectivePolicy(
  tx: Tx,
  decision: ApprovalDecision,
  domain: string | null,
): Promise<EffectivePolicy | null> {
  const rows = await tx.$queryRaw<EffectivePolicy[]>`
    SELECT domain, min_records AS "minRecords", expires_after_seconds AS "expiresAfterSeconds"
      FROM approval_policies
     WHERE decision = ${decision} AND (domain IS NULL OR domain = ${domain})
     ORDER BY domain NULLS LAST LIMIT 1`;
  return rows[0] ?? null;
}

export async function listPolicies(): Promise<PolicyView[]> {
  const rows = await db().approvalPolicy.findMany({ orderBy: [{ domain: "asc" }, { decision: "asc" }] });
  return rows.map((r) => ({
    domain: r.domain,
    decision: r.decision as ApprovalDecision,
    minRecords: r.minRecords,
    expiresAfterSeconds: r.expiresAfterSeconds,
    updatedBy: r.updatedBy,
    updatedAt: r.updatedAt.toISOString(),
  }));
}

async function requireDomain(tx: Tx, domain: string | null): Promise<void> {
  if (domain === null) return;
  const found = await tx.domain.findUnique({ where: { name: domain }, select: { name: true } });
  if (!found) throw invalidField("domain", `no domain ${domain}`, "unknown-domain");
}

/** Creates or replaces the policy of (decision, domain), logged as `approval-policy.set`. */
export async function setPolicy(input: PolicySetRequest, actor: ChangeBy): Promise<PolicyView> {
  const domain = input.domain ?? null;
  const minRecords = input.decision === "operation" ? (input.minRecords ?? null) : null;
  const expiresAfterSeconds = input.expiresAfterSeconds ?? DEFAULT_EXPIRY_SECONDS;
  return db().$transaction(async (tx) => {
    await requireDomain(tx, domain);
    const previous = await tx.approvalPolicy.findFirst({ where: { decision: input.decision, domain } });
    const data = { minRecords, expiresAfterSeconds, updatedBy: actor.label, updatedAt: new Date() };
    const row = previous
      ? await tx.approvalPolicy.update({ where: { id: previous.id }, data })
      : await tx.approvalPolicy.create({ data: { decision: input.decision, domain, ...data } });
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "approval-policy.set",
      reason: input.reason,
      details: {
        domain,
        decision: input.decision,
        minRecords,
        expiresAfterSeconds,
        previous: previous
          ? { minRecords: previous.minRecords, expiresAfterSeconds: previous.expiresAfterSeconds }
          : null,
      },
    });
    return {
      domain: row.domain,
      decision: row.decision as ApprovalDecision,
      minRecords: row.minRecords,
      expiresAfterSeconds: row.expiresAfterSeconds,
      updatedBy: row.updatedBy,
      updatedAt: row.updatedAt.toISOString(),
    };
  });
}

/** Removes the policy of (decision, domain), logged as `approval-policy.removed`; pending requests stay. */
export async function removePolicy(input: PolicyRemoveRequest, actor: ChangeBy): Promise<void> {
  const domain = input.domain ?? null;
  await db().$transaction(async (tx) => {
    const previous = await tx.approvalPolicy.findFirst({ where: { decision: input.decision, domain } });
    if (!previous) throw notFound(`no ${input.decision} approval policy for ${domain ?? "the default"}`);
    await tx.approvalPolicy.delete({ where: { id: previous.id } });
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "approval-policy.removed",
      reason: input.reason,
      details: {
        domain,
        decision: input.decision,
        minRecords: previous.minRecords,
        expiresAfterSeconds: previous.expiresAfterSeconds,
      },
    });
  });
}
