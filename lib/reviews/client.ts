// The part of lib/reviews a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export {
  ACTION_RULES,
  type ActionName,
  actionRefusal,
  type ActionRequest,
  actionRequestSchema,
  allowedActions,
  type AnyActionName,
  type Authority,
  needsCheckConfirmation,
  permits,
  reasonSchema,
  runAtSchema,
} from "./action-rules";
export { ALL_STATUSES, DEFAULT_STATUS, GROUPED_VIEW, PAGE_PARAMS } from "./queue-url";
export {
  ACTIVE_STATUSES,
  batchSchema,
  ERROR_CLASS_NONE,
  LIST_SORTS,
  listQuerySchema,
  type ListSort,
  type ListSortField,
  MAX_BATCH,
  type ReportInput,
  reportSchema,
  requiredText,
  REVIEW_STATUSES,
  reviewCountQuerySchema,
  reviewListQuerySchema,
  type ReviewStatus,
} from "./schema";
