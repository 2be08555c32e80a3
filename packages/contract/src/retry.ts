import type { TemporaryReasonPolicy } from "./kinds.ts";

export type RetryDecision = { action: "retry"; delayMs: number } | { action: "review"; reason: string };

// These are decisions about the message itself, not about the moment: repeating
// them yields the same answer, so retrying only hides the work and holds the
// worker. A kind's policy cannot opt them in.
export const NEVER_TEMPORARY_REASONS: readonly string[] = [
  "invalid-contract",
  "unsupported-schema",
  "invalid-payload",
  "sequence-gap",
  "stale-or-conflicting",
  "effect-result-unknown",
];

export function nextAttempt(
  completedAttempts: number,
  reason: string,
  policy: Record<string, TemporaryReasonPolicy>,
): RetryDecision {
  // Own keys only, so a reason like "constructor" is not found on Object.prototype.
  const temporary = Object.hasOwn(policy, reason) ? policy[reason] : undefined;
  if (temporary === undefined || NEVER_TEMPORARY_REASONS.includes(reason)) {
    return { action: "review", reason };
  }
  // Written as "not below the limit" so a NaN count or a malformed limit stops
  // retrying instead of retrying forever.
  if (!(completedAttempts < temporary.limit) || !Number.isSafeInteger(temporary.limit)) {
    return { action: "review", reason: "retry-limit" };
  }
  return { action: "retry", delayMs: temporary.delayMs };
}
