// The decision log's URL is its state; this module reads it the same way on the server
// (prefetch) and in the browser. Times are UTC throughout the log: the URL holds ISO instants,
// the datetime-local inputs show and take UTC wall-clock time (their labels say so).

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

/** `2026-11-30T09:05` (UTC, for a datetime-local input) from an ISO instant; "" when unreadable. */
export function isoToUtcInput(iso: string | undefined): string {
  if (!iso) return "";
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  const text = new Date(time).toISOString();
  return text.slice(17, 19) === "00" ? text.slice(0, 16) : text.slice(0, 19);
}

/** An ISO instant from a datetime-local value read as UTC; "" for an empty input. */
export function utcInputToIso(value: string): string {
  if (!value) return "";
  const time = Date.parse(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(time) ? "" : new Date(time).toISOString();
}

export function fromPageParams(params: Record<string, string | string[] | undefined>): Getter {
  return (key) => {
    const value = params[key];
    return Array.isArray(value) ? value[0] : value;
  };
}
