// lib/replays: Scheduled replays as consumers see them: claiming one, renewing the claim, reporting
// its outcome. Its face (docs/decisions/0049-modules-in-order.md): what other code may import of
// it.

export { claimDueReplays, claimReplays, renewClaims } from "./claim";
export { type OutcomeResult, reportReplayOutcome } from "./outcome";
export { claimSchema, outcomeSchema, renewSchema } from "./schema";
