// The part of lib/approvals a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  approvalAnswerSchema,
  type ApprovalDecision,
  approvalListQuerySchema,
  type ApprovalStatus,
  isApprovableAction,
  policyRemoveSchema,
  policySetSchema,
} from "./schema";
