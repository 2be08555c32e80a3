import { afterCommit } from "@/lib/db/client";
import { processMetrics } from "./process";

/**
 * Counts `n` decision-log entries of `action` that `client` (the db client or a transaction's)
 * appended, once they are committed: a rolled-back decision was never taken.
 */
export function countDecisions(client: unknown, action: string, n = 1): void {
  if (n <= 0) return;
  afterCommit(client, () => processMetrics().decisions.inc({ action }, n));
}
