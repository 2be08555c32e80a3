import type { Prisma } from "@/lib/generated/prisma/client";
import { db } from "@/lib/db/client";
import { countDecisions } from "@/lib/metrics/decisions";

export interface DecisionEntry {
  actor: string;
  actorRole?: string | null;
  action: string;
  reviewId?: string | null;
  effectKey?: string | null;
  reason?: string | null;
  details?: Prisma.InputJsonValue;
}

type Tx = Pick<Prisma.TransactionClient, "decisionLog">;

/**
 * Appends one entry. `seq`, `at` and the hash chain are set by the database trigger. Call it as
 * the last write of a transaction: from this insert until commit, other appends wait. Counted in
 * review_console_decisions_total once committed. (Multi-row appends in SQL count their own:
 * countDecisions.)
 */
export async function appendDecision(tx: Tx, entry: DecisionEntry): Promise<void> {
  await tx.decisionLog.create({
    data: {
      actor: entry.actor,
      actorRole: entry.actorRole ?? null,
      action: entry.action,
      reviewId: entry.reviewId ?? null,
      effectKey: entry.effectKey ?? null,
      reason: entry.reason ?? null,
      details: entry.details,
    },
    select: { seq: true },
  });
  countDecisions(tx, entry.action);
}

/** For events that change nothing else, such as a refused authorization. */
export function appendStandaloneDecision(entry: DecisionEntry): Promise<void> {
  return appendDecision(db(), entry);
}
