import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { PolicyView, ApprovalView } from "@/lib/approvals";
import type { ApprovalDecision, ApprovalStatus } from "@/lib/approvals/client";
import { apiGet, apiPost, apiPut, queryString } from "@/lib/client/api";
import { reviewKeys } from "@/lib/client/query-keys";

// Queries of the approvals page, the header's badge and the record page's box
// (docs/decisions/0031-four-eyes-approvals.md).

export const approvalKeys = {
  all: ["approvals"] as const,
  list: (status: ApprovalStatus | "all", reviewId?: string) =>
    [...approvalKeys.all, "list", status, reviewId ?? null] as const,
  policies: () => [...approvalKeys.all, "policies"] as const,
};

export interface ApprovalList {
  approvals: ApprovalView[];
  waitingForYou: number;
}

export function approvalsOptions(status: ApprovalStatus | "all" = "pending", reviewId?: string) {
  return queryOptions({
    queryKey: approvalKeys.list(status, reviewId),
    queryFn: ({ signal }) => apiGet<ApprovalList>(`/api/v1/approvals${queryString({ status, reviewId })}`, signal),
    refetchInterval: 15_000,
  });
}

export function policiesOptions() {
  return queryOptions({
    queryKey: approvalKeys.policies(),
    queryFn: ({ signal }) => apiGet<{ policies: PolicyView[] }>("/api/v1/approval-policies", signal),
  });
}

/** Approve, reject or (the requester) withdraw; what it ran (a record, an operation) is refreshed with the lists. */
export function useAnswerApproval() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, answer, reason }: { id: string; answer: "approve" | "reject" | "withdraw"; reason: string }) =>
      apiPost<{ approval: ApprovalView }>(`/api/v1/approvals/${encodeURIComponent(id)}/${answer}`, { reason }),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: approvalKeys.all }),
        queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
      ]),
  });
}

export interface PolicyInput {
  decision: ApprovalDecision;
  domain: string | null;
  minRecords?: number | null;
  expiresAfterSeconds?: number;
  reason: string;
}

export function useSetPolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: PolicyInput) => apiPut<{ policy: PolicyView }>("/api/v1/approval-policies", input),
    onSettled: () => queryClient.invalidateQueries({ queryKey: approvalKeys.policies() }),
  });
}

export function useRemovePolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { decision: ApprovalDecision; domain: string | null; reason: string }) =>
      apiPost<{ policies: PolicyView[] }>("/api/v1/approval-policies/remove", input),
    onSettled: () => queryClient.invalidateQueries({ queryKey: approvalKeys.policies() }),
  });
}
