import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { apiGet, queryString } from "@/lib/client/api";
import { reviewKeys } from "@/lib/client/query-keys";
import type { CauseGroups, ListSort, QueuePage, QueueStats } from "./model";
import { groupFilters, type QueueFilters } from "./queue-params";

// Query definitions of the queue, shared by the browser (fetching the API) and the server page
// (which swaps `queryFn` for a direct call of lib/reviews, same key, same data shape).

export const QUEUE_PAGE_SIZE = 50;
/** Live refresh of the list and the counts. */
export const LIVE_REFRESH_MS = 10_000;

/** The records for `filters`, in `sort`'s order (undefined: newest first), page by page. */
export function queueListOptions(filters: QueueFilters, sort?: ListSort) {
  // The order is part of the key: each order has its own pages and cursors.
  const params = sort ? { ...filters, sort } : filters;
  return infiniteQueryOptions({
    queryKey: reviewKeys.list(params),
    queryFn: ({ pageParam, signal }) =>
      apiGet<QueuePage>(
        `/api/v1/reviews${queryString({ ...params, cursor: pageParam ?? undefined, limit: QUEUE_PAGE_SIZE })}`,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last: QueuePage) => last.nextCursor,
  });
}

/** How many records `filters` select: up to the API's cap (`more` past it), or `exact`. */
export function queueCountOptions(filters: QueueFilters, exact: boolean) {
  return queryOptions({
    queryKey: reviewKeys.count(filters, exact),
    queryFn: ({ signal }) =>
      apiGet<{ count: number; more: boolean }>(
        `/api/v1/reviews/count${queryString({ ...filters, exact: exact ? "true" : undefined })}`,
        signal,
      ),
  });
}

export function queueStatsOptions() {
  return queryOptions({
    queryKey: reviewKeys.stats(),
    queryFn: ({ signal }) => apiGet<QueueStats>("/api/v1/reviews/stats", signal),
  });
}

export function causeGroupsOptions(filters: QueueFilters) {
  const picked = groupFilters(filters);
  return queryOptions({
    queryKey: reviewKeys.groups(picked),
    queryFn: ({ signal }) => apiGet<CauseGroups>(`/api/v1/reviews/groups${queryString(picked)}`, signal),
  });
}
