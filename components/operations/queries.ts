import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { apiGet, queryString } from "@/lib/client/api";
import { operationKeys, type OperationItemFilters } from "@/lib/client/query-keys";
import type { KindAutoReplay, OperationView } from "@/lib/operations/client";
import type { AuditPage } from "@/components/audit/model";
import { isLive, LIVE_REFRESH_MS, type OperationItemsPage, type OperationsPage } from "./model";

// Query definitions of the operations pages (docs/operations.md, "API").

export const OPERATIONS_PAGE_SIZE = 25;
export const ITEMS_PAGE_SIZE = 50;
export const LOG_PAGE_SIZE = 50;

export function operationPath(id: string): string {
  return `/api/v1/operations/${encodeURIComponent(id)}`;
}

/** Every 1.5 s while the operation can move by itself; otherwise only on focus and after actions. */
export function liveInterval(operation: OperationView | undefined): number | false {
  return operation && isLive(operation.state) ? LIVE_REFRESH_MS : false;
}

export function operationsListOptions() {
  return infiniteQueryOptions({
    queryKey: operationKeys.list({}),
    queryFn: ({ pageParam, signal }) =>
      apiGet<OperationsPage>(
        `/api/v1/operations${queryString({ cursor: pageParam ?? undefined, limit: OPERATIONS_PAGE_SIZE })}`,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last: OperationsPage) => last.nextCursor,
  });
}

export function operationOptions(id: string) {
  return queryOptions({
    queryKey: operationKeys.detail(id),
    queryFn: ({ signal }) => apiGet<OperationView>(operationPath(id), signal),
    refetchInterval: (query) => liveInterval(query.state.data),
  });
}

/** The operation's records filtered by item `state` or dry-run `verdict`, in position order. */
export function operationItemsOptions(id: string, filters: OperationItemFilters) {
  return infiniteQueryOptions({
    queryKey: operationKeys.items(id, filters),
    queryFn: ({ pageParam, signal }) =>
      apiGet<OperationItemsPage>(
        `${operationPath(id)}/items${queryString({ ...filters, cursor: pageParam ?? undefined, limit: ITEMS_PAGE_SIZE })}`,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last: OperationItemsPage) => last.nextCursor,
  });
}

export function operationLogOptions(id: string) {
  return infiniteQueryOptions({
    queryKey: operationKeys.log(id),
    queryFn: ({ pageParam, signal }) =>
      apiGet<AuditPage>(
        `${operationPath(id)}/log${queryString({ cursor: pageParam ?? undefined, limit: LOG_PAGE_SIZE })}`,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last: AuditPage) => last.nextCursor,
  });
}

export function autoReplayOptions() {
  return queryOptions({
    queryKey: operationKeys.autoReplay(),
    queryFn: ({ signal }) => apiGet<{ kinds: KindAutoReplay[] }>("/api/v1/operations/auto-replay", signal),
  });
}
