"use client";

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiPost, ApiRequestError } from "@/lib/client/api";
import type { ApprovalView } from "@/lib/approvals";
import { reviewKeys } from "@/lib/client/query-keys";
import type { ActionRequest } from "@/lib/reviews/client";
import { detailPath, type ReviewDetail } from "./types";

/** Live enough to notice a colleague's action while reading, light enough to leave open all day. */
export const REFRESH_MS = 10_000;

export function recordQuery(id: string) {
  return queryOptions({
    queryKey: reviewKeys.detail(id),
    queryFn: ({ signal }) => apiGet<ReviewDetail>(detailPath(id), signal),
    refetchInterval: REFRESH_MS,
  });
}

export function useRecord(id: string) {
  return useQuery(recordQuery(id));
}

/**
 * The fresh record a 409 carries: every conflict of the actions API answers with the record as
 * it now is, its `message` parsed (lib/http/review-responses.ts, withFreshRecord).
 */
export function freshRecordOf(error: unknown): ReviewDetail | null {
  if (!(error instanceof ApiRequestError)) return null;
  const record = (error.body as { record?: unknown } | null)?.record;
  if (!record || typeof record !== "object" || !("version" in record)) return null;
  return record as ReviewDetail;
}

/**
 * One action on one record. The answer (or, on a 409, the fresh record that came with it)
 * replaces the cached detail, so what the person sees is what the server now holds.
 */
export function useRecordAction(id: string) {
  const queryClient = useQueryClient();
  const key = reviewKeys.detail(id);
  return useMutation<ReviewDetail & { approval?: ApprovalView }, Error, ActionRequest>({
    mutationFn: async (body) => {
      const answer = await apiPost<ReviewDetail | { approval: ApprovalView }>(`${detailPath(id)}/actions`, body);
      if (!("approval" in answer)) return answer;
      // A 202: the action waits for a second person (ADR 0031); the record is as it was.
      await queryClient.invalidateQueries({ queryKey: ["approvals"] });
      return { ...(await apiGet<ReviewDetail>(detailPath(id))), approval: answer.approval };
    },
    onSuccess: async (record) => {
      // A refresh already in flight would otherwise land after this answer and show the old record.
      await queryClient.cancelQueries({ queryKey: key });
      queryClient.setQueryData(key, record);
    },
    onError: async (error) => {
      const fresh = freshRecordOf(error);
      if (fresh) {
        await queryClient.cancelQueries({ queryKey: key });
        queryClient.setQueryData(key, fresh);
      }
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: reviewKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: reviewKeys.stats() }),
      ]),
  });
}
