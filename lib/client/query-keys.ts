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
  count: (filters: ReviewFilters, exact: boolean) => [...reviewKeys.all, "count", filters, exact] as const,
  details: () => [...reviewKeys.all, "detail"] as const,
  detail: (id: string) => [...reviewKeys.details(), id] as const,
  /** The contract's verdict for a replay of the record, on what it was computed from (`basis`). */
  verdict: (id: string, basis: unknown) => [...reviewKeys.detail(id), "verdict", basis] as const,
};

export const auditKeys = {
  all: ["audit"] as const,
  list: (filters: AuditFilters) => [...auditKeys.all, "list", filters] as const,
  verification: () => [...auditKeys.all, "verification"] as const,
};

export type OperationItemFilters = Record<string, string | undefined>;

export const operationKeys = {
  all: ["operations"] as const,
  lists: () => [...operationKeys.all, "list"] as const,
  list: (filters: Record<string, string | undefined>) => [...operationKeys.lists(), filters] as const,
  details: () => [...operationKeys.all, "detail"] as const,
  detail: (id: string) => [...operationKeys.details(), id] as const,
  /** An operation's records, by item state or dry-run verdict; under its detail, so one invalidation covers both. */
  items: (id: string, filters: OperationItemFilters) => [...operationKeys.detail(id), "items", filters] as const,
  log: (id: string) => [...operationKeys.detail(id), "log"] as const,
  autoReplay: () => [...operationKeys.all, "auto-replay"] as const,
};

/** The admin page: people and API tokens (each change invalidates its own list). */
export const adminKeys = {
  all: ["admin"] as const,
  people: () => [...adminKeys.all, "people"] as const,
  tokens: () => [...adminKeys.all, "tokens"] as const,
  domains: () => [...adminKeys.all, "domains"] as const,
  webhooks: () => [...adminKeys.all, "webhooks"] as const,
  deliveries: (webhookId: string) => [...adminKeys.webhooks(), webhookId, "deliveries"] as const,
};

/** Saved views of the queue (the navigation's list and the queue's dialog share it). */
export const viewKeys = {
  all: ["views"] as const,
  list: () => [...viewKeys.all, "list"] as const,
};
