import { db } from "@/lib/db/client";
import { effectivePolicy } from "./policies";
import { APPROVAL_DECISIONS, type ApprovalDecision } from "./schema";

/**
 * The record actions that would wait for a second person on a record of `domain`: those an
 * approval policy (the domain's, else the default) holds back, by the gate's own lookup
 * (effectivePolicy). The record page says so before a person confirms one.
 */
export async function actionsNeedingApproval(domain: string | null): Promise<Exclude<ApprovalDecision, "operation">[]> {
  const actions = APPROVAL_DECISIONS.filter((d): d is Exclude<ApprovalDecision, "operation"> => d !== "operation");
  const policies = await Promise.all(actions.map((action) => effectivePolicy(db(), action, domain)));
  return actions.filter((_, i) => policies[i] !== null);
}
