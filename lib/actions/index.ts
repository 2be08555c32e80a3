// lib/actions: Carrying an action out on a record: one person's, an approved request's, an
// operation's items (the dispatcher) and automatic replay; the record's detail and verdict, which
// say what can be done. Its face (docs/decisions/0049-modules-in-order.md): what other code may
// import of it.

export { approveRequest, listApprovals, rejectRequest } from "./approval-decisions";
export { operationApprovalGate, recordApprovalGate } from "./approval-gates";
export { autoReplayReady, listAutoReplaySettings, setAutoReplay } from "./auto-replay";
export { dbStatus, getReview, type ReviewDetail } from "./detail";
export { dispatchDue, dispatchStep, runDispatcher } from "./dispatcher";
export { performAction } from "./perform-action";
export {
  recordVerdict,
  type RecordVerdict,
  recordVerdictSchema,
  type VerdictRequest,
  verdictRequestSchema,
} from "./verdict";
