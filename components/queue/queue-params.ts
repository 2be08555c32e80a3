import { ALL_STATUSES, DEFAULT_STATUS, GROUPED_VIEW } from "@/lib/reviews/client";
import { CATEGORIES, LIST_SORTS, type ListSort, STATUSES } from "./model";

// The queue's URL is its state: this module turns a query string into the filters sent to the
// API (and used as query keys), the same way on the server (prefetch) and in the browser, so
// the server's prefetched page lands in the cache under the very key the browser asks for.

/** Without a `status` parameter the queue shows open records; `status=all`: no status filter. */
export { ALL_STATUSES, DEFAULT_STATUS };

/** The text filters, in the order the form shows them. */
export const TEXT_FILTERS = ["reason", "kind", "sequenceKey", "effectKey", "errorClass"] as const;
export type TextFilter = (typeof TEXT_FILTERS)[number];

/** What the API receives (`undefined` = not filtered). Keys with no value are left out. */
export interface QueueFilters {
  status?: string;
  category?: string;
  reason?: string;
  kind?: string;
  sequenceKey?: string;
  effectKey?: string;
  errorClass?: string;
  q?: string;
  [key: string]: string | undefined;
}

export interface QueueState {
  filters: QueueFilters;
  /** The status selection as the form shows it: a comma list or `all`. */
  status: string;
  /** The category selection as the form shows it: a comma list, or "" for all. */
  category: string;
  /** The search text as typed in the URL (it may be too short to be sent). */
  qText: string;
  /** True when `q` has 1 character: the API needs 2, so the search is not applied. */
  qTooShort: boolean;
  grouped: boolean;
  /** The list's order (`sort=`), or undefined for the default: newest first by arrival. */
  sort?: ListSort;
  /** `assignee=me`: only the records assigned to the signed-in person ("Mine", ADR 0028). */
  mine: boolean;
}

type Getter = (key: string) => string | null | undefined;

/** Keeps the known values of a comma list, in their canonical order, without duplicates. */
function knownList(raw: string | null | undefined, allowed: readonly string[]): string[] {
  if (!raw) return [];
  const given = new Set(raw.split(",").map((v) => v.trim()));
  return allowed.filter((v) => given.has(v));
}

function text(raw: string | null | undefined): string | undefined {
  const value = raw?.trim();
  return value ? value : undefined;
}

export function readQueueState(get: Getter): QueueState {
  const rawStatus = get("status")?.trim();
  const statuses = knownList(rawStatus, STATUSES);
  const status = rawStatus === ALL_STATUSES ? ALL_STATUSES : statuses.length ? statuses.join(",") : DEFAULT_STATUS;
  const category = knownList(get("category"), CATEGORIES).join(",");
  const qText = get("q")?.trim() ?? "";

  const filters: QueueFilters = {};
  if (status !== ALL_STATUSES) filters.status = status;
  if (category) filters.category = category;
  for (const key of TEXT_FILTERS) {
    const value = text(get(key));
    if (value) filters[key] = value;
  }
  if (qText.length >= 2) filters.q = qText;
  const mine = get("assignee")?.trim() === "me";
  if (mine) filters.assignee = "me";

  // An unknown order is dropped, as an unknown status is: the URL is the user's, not the API's.
  const rawSort = get("sort")?.trim();
  const sort = LIST_SORTS.find((s) => s === rawSort);

  return {
    filters,
    status,
    category,
    qText,
    qTooShort: qText.length === 1,
    grouped: get(GROUPED_VIEW.key) === GROUPED_VIEW.value,
    ...(sort ? { sort } : {}),
    mine,
  };
}

/** A getter over a Next.js page's `searchParams` object (first value of repeated keys). */
export function fromPageParams(params: Record<string, string | string[] | undefined>): Getter {
  return (key) => {
    const value = params[key];
    return Array.isArray(value) ? value[0] : value;
  };
}

/** The filters of the grouped view: the list's, less those that the groups are made of. */
export function groupFilters(filters: QueueFilters): QueueFilters {
  const picked: QueueFilters = {};
  if (filters.status) picked.status = filters.status;
  if (filters.category) picked.category = filters.category;
  if (filters.kind) picked.kind = filters.kind;
  if (filters.reason) picked.reason = filters.reason;
  return picked;
}
