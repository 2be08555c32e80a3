// lib/approvals: Four-eyes requests: the policies that ask for them, what is pending, and
// withdrawing a request whose requester lost the right. Its face (docs/decisions/0049-modules-in-
// order.md): what other code may import of it, with the browser-safe part from ./client.ts.

export * from "./client";
export { refuseDuplicateOperationRequest } from "./duplicates";
export { actionsNeedingApproval } from "./needed";
export {
  operationItemRefusal,
  PENDING_REQUEST,
  pendingRefusal,
  pendingRequestRefusal,
  pendingRequestsOf,
} from "./pending";
export { effectivePolicy, listPolicies, type PolicyView, removePolicy, setPolicy } from "./policies";
export {
  approvalLogDetails,
  type ApprovalRow,
  domainsOf,
  expireOverdue,
  isRequester,
  mayDecide,
  mayView,
  storeApproval,
  toView,
} from "./store";
export { type ApprovalView } from "./view";
export { withdrawOwnRequest } from "./withdraw-own";
export { findLostRequests, requesterLost, withdrawRequest } from "./withdraw";
