// TanStack Query key factories: every query and every invalidation names its data through these,
// so an action can refresh exactly what it changed (after Formbricks).

export type ReviewFilters = Record<string, string | undefined>;
export type AuditFilters = Record<string, string | undefined>;

export const reviewKeys = {
  all: ["reviews"] as const,
  lists: () => [...reviewKeys.all, "list"] as const,
  list: (filters: ReviewFilters) => [...reviewKeys.lists(), filters] as const,
  stats: () => [...reviewKeys.all, "stats"] as const,
  groups: (filters: ReviewFilters) => [...reviewKeys.all, "groups", filters] as const,
  details: () => [...reviewKeys.all, "detail"] as const,
  detail: (id: string) => [...reviewKeys.details(), id] as const,
};

export const auditKeys = {
  all: ["audit"] as const,
  list: (filters: AuditFilters) => [...auditKeys.all, "list", filters] as const,
  verification: () => [...auditKeys.all, "verification"] as const,
};
