"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiPost, apiPut, ApiRequestError } from "@/lib/client/api";
import { operationKeys, reviewKeys } from "@/lib/client/query-keys";
import type { KindAutoReplay, OperationAction, OperationView, Selection } from "@/lib/operations/client";
import type { ApprovalView } from "@/lib/approvals";
import { operationPath } from "./queries";

export interface CreateOperationRequest {
  action: OperationAction;
  reason: string;
  selection: Selection;
  runAt?: string;
  ratePerSecond?: number;
  canarySize?: number;
  autoPause?: { threshold: number; minOutcomes: number } | null;
}

export type ControlRequest =
  | { control: "dry-run" }
  | { control: "confirm"; expectedVersion: number; dryRunAt: string; checkDone: true }
  | { control: "pause"; reason?: string }
  | { control: "resume" | "abort"; reason: string };

/**
 * The created operation (201), or the approval request that waits instead (202: an approval
 * policy holds it back; no operation exists yet).
 */
export type CreateOperationAnswer = OperationView | { approval: ApprovalView };

export function useCreateOperation() {
  const queryClient = useQueryClient();
  return useMutation<CreateOperationAnswer, Error, CreateOperationRequest>({
    mutationFn: (body) => apiPost<CreateOperationAnswer>("/api/v1/operations", body),
    onSuccess: (answer) => {
      if ("approval" in answer) return queryClient.invalidateQueries({ queryKey: ["approvals"] });
      queryClient.setQueryData(operationKeys.detail(answer.id), answer);
      return queryClient.invalidateQueries({ queryKey: operationKeys.lists() });
    },
  });
}

/** Where a created operation's answer leads: the operation, or the approval request that waits. */
export function createdPath(answer: CreateOperationAnswer): string {
  return "approval" in answer
    ? `/approvals?request=${encodeURIComponent(answer.approval.id)}`
    : `/operations/${encodeURIComponent(answer.id)}`;
}

/** An identical request already waits for approval (409 approval-pending): its id. */
export function pendingDuplicateOf(error: unknown): string | null {
  if (!(error instanceof ApiRequestError) || error.status !== 409 || error.code !== "approval-pending") return null;
  const id = (error.body as { approvalId?: unknown } | null)?.approvalId;
  return typeof id === "string" ? id : null;
}

/**
 * One control of one operation. The answer replaces the cached operation, and its records and log
 * are read again; a 409 (the state moved meanwhile) refetches, so the page shows what now holds.
 */
export function useOperationControl(id: string) {
  const queryClient = useQueryClient();
  const key = operationKeys.detail(id);
  return useMutation<OperationView, Error, ControlRequest>({
    mutationFn: ({ control, ...body }) => apiPost<OperationView>(`${operationPath(id)}/${control}`, body),
    onSuccess: async (operation) => {
      await queryClient.cancelQueries({ queryKey: key, exact: true });
      queryClient.setQueryData(key, operation);
      // The items and the log live under the detail's key; not awaited, so the answer shows at once.
      void queryClient.invalidateQueries({ queryKey: key, predicate: (q) => q.queryKey.length > key.length });
    },
    onError: (error) =>
      error instanceof ApiRequestError && error.status === 409
        ? queryClient.invalidateQueries({ queryKey: key })
        : undefined,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: operationKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: reviewKeys.all });
    },
  });
}

export function useSetAutoReplay() {
  const queryClient = useQueryClient();
  return useMutation<KindAutoReplay, Error, { kind: string; enabled: boolean; reason: string }>({
    mutationFn: ({ kind, ...body }) =>
      apiPut<KindAutoReplay>(`/api/v1/operations/auto-replay/${encodeURIComponent(kind)}`, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: operationKeys.autoReplay() }),
  });
}
