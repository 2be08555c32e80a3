import type { ApprovalView } from "@/lib/approvals";

/** What an approval request would do, in words. */
export function describeDecision(approval: ApprovalView): string {
  if (approval.decision === "operation") {
    return `Bulk ${approval.operationAction ?? ""} operation of ${approval.records ?? "?"} records`;
  }
  const what: Record<string, string> = {
    cancel: "Cancel the effect",
    "confirm-applied": "Confirm with the provider: applied",
    "skip-gap": "Skip the sequence gap",
  };
  return what[approval.decision] ?? approval.decision;
}

export function domainText(approval: ApprovalView): string {
  if (approval.domain) return approval.domain;
  return approval.domains.length > 0 ? approval.domains.join(", ") : "no domain";
}
