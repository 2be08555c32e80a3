import { queryOptions } from "@tanstack/react-query";
import { apiGet } from "@/lib/client/api";
import type { Overview, OverviewWindow } from "./model";

// The overview's query, shared by the browser (fetching the API) and the server page (which
// swaps `queryFn` for a direct call of lib/overview, same key, same data shape).

export const overviewKeys = {
  all: ["overview"] as const,
  window: (window: OverviewWindow) => [...overviewKeys.all, window] as const,
};

/** The figures refresh on their own this often (arrivals of the current hour, operations). */
export const OVERVIEW_REFRESH_MS = 30_000;

export function overviewOptions(window: OverviewWindow) {
  return queryOptions({
    queryKey: overviewKeys.window(window),
    queryFn: ({ signal }) => apiGet<Overview>(`/api/v1/overview?window=${window}`, signal),
    refetchInterval: OVERVIEW_REFRESH_MS,
  });
}
