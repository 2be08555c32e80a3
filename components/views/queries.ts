import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { apiDelete, apiGet, apiPost, apiPut } from "@/lib/client/api";
import { viewKeys } from "@/lib/client/query-keys";
import type { SavedView } from "@/lib/views";

// Saved views of the queue (docs/api-additions.md, "Saved views"): one list, read by the
// navigation and the queue's dialog; every change refreshes it.

export function savedViewsOptions() {
  return queryOptions({
    queryKey: viewKeys.list(),
    queryFn: ({ signal }) => apiGet<{ views: SavedView[] }>("/api/v1/views", signal),
  });
}

function useViewMutation<I>(send: (input: I) => Promise<{ view: SavedView }>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSettled: () => client.invalidateQueries({ queryKey: viewKeys.all }),
  });
}

export function useSaveView() {
  return useViewMutation((input: { name: string; query: string; shared: boolean }) =>
    apiPost<{ view: SavedView }>("/api/v1/views", input),
  );
}

export function useChangeView() {
  return useViewMutation(({ id, ...change }: { id: string; name?: string; shared?: boolean }) =>
    apiPut<{ view: SavedView }>(`/api/v1/views/${encodeURIComponent(id)}`, change),
  );
}

export function useDeleteView() {
  return useViewMutation((id: string) =>
    apiDelete<{ view: SavedView }>(`/api/v1/views/${encodeURIComponent(id)}`, undefined),
  );
}
