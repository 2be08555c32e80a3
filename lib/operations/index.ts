// lib/operations: Bulk operations: their definition and selection, the dry run, control (confirm,
// pause, resume, abort), their items' state and outcome. Its face (docs/decisions/0049-modules-in-
// order.md): what other code may import of it, with the browser-safe part from ./client.ts.

export * from "./client";
export {
  AUTO_REPLAY_PERMISSION,
  operationAuthority,
  type PausedByChange,
  pauseForLostAuthority,
  pauseSwitch,
  pauseWhatLostAuthority,
  switchAuthorityLost,
} from "./authority";
export {
  appendBatchEntries,
  type BatchItem,
  type BatchOutcome,
  type BatchResult,
  noteBatch,
  replayBatch,
} from "./batch-actions";
export { abortOperation, confirmOperation, dryRunOperation, pauseOperation, resumeOperation } from "./control";
export {
  createOperation,
  createOperationInTx,
  createOrHoldOperation,
  type OperationApprovalGate,
  operationPermission,
} from "./create";
export { type ItemVerdict, type JudgedRecord, judgeRecordReplay } from "./dry-run";
export {
  AUTO_PAUSE_REASON_PREFIX,
  completeIfDone,
  markOperationItems,
  OPERATIONS_ACTOR,
  recordOperationOutcome,
} from "./items-state";
export { operationsOfRecord } from "./record-operations";
export { countSelection } from "./selection-count";
export { startAgainProblem } from "./start-again";
export { getOperation, listOperationItems, listOperations, operationExists } from "./view";
