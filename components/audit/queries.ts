import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { apiGet, queryString } from "@/lib/client/api";
import { auditKeys } from "@/lib/client/query-keys";
import type { AuditFilters } from "./audit-params";
import type { AuditPage, ChainVerification } from "./model";

export const AUDIT_PAGE_SIZE = 50;

export function auditListOptions(filters: AuditFilters) {
  return infiniteQueryOptions({
    queryKey: auditKeys.list(filters),
    queryFn: ({ pageParam, signal }) =>
      apiGet<AuditPage>(
        `/api/v1/audit${queryString({ ...filters, cursor: pageParam ?? undefined, limit: AUDIT_PAGE_SIZE })}`,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last: AuditPage) => last.nextCursor,
  });
}

export function chainVerificationOptions() {
  return queryOptions({
    queryKey: auditKeys.verification(),
    queryFn: ({ signal }) => apiGet<ChainVerification>("/api/v1/audit/verification", signal),
    // Walking the whole chain is not free: verify on arrival and on request, not on every focus.
    staleTime: 5 * 60_000,
    refetchOnWindowFocus: false,
  });
}

/** The export's address for the current filters (a plain download link). */
export function auditExportHref(format: "ndjson" | "csv", filters: AuditFilters): string {
  return `/api/v1/audit/export${queryString({ format, ...filters })}`;
}
