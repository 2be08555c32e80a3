// The part of lib/operations a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export { operationOutcome, type OperationOutcome, unfinishedCount } from "./outcome";
export {
  autoReplaySwitchSchema,
  confirmSchema,
  controlSchema,
  type CreateOperationRequest,
  createOperationSchema,
  DEFAULT_RATE,
  emptyBodySchema,
  itemsQuerySchema,
  MAX_RATE,
  operationListQuerySchema,
  operationLogQuerySchema,
  pauseSchema,
  resumeSchema,
} from "./schema";
export {
  actingCount,
  type DryRun,
  ITEM_STATES,
  type ItemState,
  type KindAutoReplay,
  LIVE_OPERATION_STATES,
  OPERATION_ACTIONS,
  OPERATION_CONTROLS,
  OPERATION_STATES,
  type OperationAction,
  type OperationItemView,
  type OperationState,
  type OperationView,
  type RecordOperationRef,
  type Selection,
  type Verdict,
  VERDICTS,
} from "./types";
