import type { ApprovalDecision, ApprovalStatus } from "./schema";

/** One approval request as the API answers it (no server imports: the console reads it too). */
export interface ApprovalView {
  id: string;
  status: ApprovalStatus;
  decision: ApprovalDecision;
  /** What would run: the record action, or `operation` with `operationAction`. */
  action: string;
  operationAction: string | null;
  permission: string;
  domain: string | null;
  domains: string[];
  reviewId: string | null;
  expectedVersion: number | null;
  records: number | null;
  reason: string;
  requestedBy: string;
  decidedBy: string | null;
  decidedReason: string | null;
  decidedAt: string | null;
  problem: string | null;
  operationId: string | null;
  expiresAt: string;
  createdAt: string;
  /** Whether the caller may approve or reject it now (pending, not theirs, allowed in its domain). */
  canDecide: boolean;
  /** For an operation: its selection and settings as asked (null: the default), else null. */
  operationRequest: {
    selection: unknown;
    runAt: string | null;
    ratePerSecond: number | null;
    canarySize: number | null;
  } | null;
}
