// The decision log's URL is its state; this module reads it the same way on the server
// (prefetch) and in the browser. The URL holds ISO instants; the datetime-local inputs show and
// take them in the person's zone (audit-filters.tsx; their labels name it).

export const AUDIT_FILTERS = ["actor", "action", "reviewId", "effectKey", "from", "to"] as const;
export type AuditFilterKey = (typeof AUDIT_FILTERS)[number];

export interface AuditFilters {
  actor?: string;
  action?: string;
  reviewId?: string;
  effectKey?: string;
  from?: string;
  to?: string;
  [key: string]: string | undefined;
}

type Getter = (key: string) => string | null | undefined;

/** An ISO instant with a zone, normalised to `…Z`; other text is kept so the API can explain it. */
function instant(raw: string): string {
  const time = Date.parse(raw);
  return /(?:[zZ]|[+-]\d\d:?\d\d)$/.test(raw) && !Number.isNaN(time) ? new Date(time).toISOString() : raw;
}

export function readAuditFilters(get: Getter): AuditFilters {
  const filters: AuditFilters = {};
  for (const key of AUDIT_FILTERS) {
    const value = get(key)?.trim();
    if (!value) continue;
    filters[key] = key === "from" || key === "to" ? instant(value) : value;
  }
  return filters;
}

export function fromPageParams(params: Record<string, string | string[] | undefined>): Getter {
  return (key) => {
    const value = params[key];
    return Array.isArray(value) ? value[0] : value;
  };
}
