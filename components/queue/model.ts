import type { ReviewCategory } from "@review-console/contract";
import type { ReviewStatus } from "@/lib/reviews/schema";
import type { ReviewQueueItem } from "@/lib/reviews/list";

// The queue's view of the API (docs API.md, GET /api/v1/reviews, /stats, /groups). Only types
// come from lib/ (plus isomorphic constants of lib/reviews/schema.ts), so no server code reaches
// the browser bundle; the lists below are checked against lib's types at compile time.

export const STATUSES = [
  "open",
  "replay-scheduled",
  "replaying",
  "resolved",
  "cancelled",
] as const satisfies readonly ReviewStatus[];
export const CATEGORIES = [
  "manual-review",
  "sequence-gap",
  "effect-result-unknown",
] as const satisfies readonly ReviewCategory[];

// Compile-time completeness: adding a status or category in lib/ without adding it here fails.
type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : never;
export const STATUSES_COMPLETE: Missing<ReviewStatus, (typeof STATUSES)[number]> = true;
export const CATEGORIES_COMPLETE: Missing<ReviewCategory, (typeof CATEGORIES)[number]> = true;

/** The `errorClass` (and `kind`) filter value that selects records without one. */
export { ERROR_CLASS_NONE } from "@/lib/reviews/schema";

/** A row of the queue: the list API's item, as the server types it. */
export type QueueItem = ReviewQueueItem;

export interface QueuePage {
  items: QueueItem[];
  nextCursor: string | null;
}

export interface QueueStats {
  total: number;
  byStatus: Record<string, number>;
  byCategory: Record<string, number>;
  byReason: Record<string, number>;
  active: { byCategory: Record<string, number>; byReason: Record<string, number> };
  oldestOpenAgeSeconds: number | null;
  oldestOpenSince: string | null;
}

export interface CauseGroup {
  kind: string | null;
  reason: string;
  errorClass: string | null;
  count: number;
  oldestFirstSeenAt: string;
  newestLastSeenAt: string;
}

export interface CauseGroups {
  groups: CauseGroup[];
  /** True when the server cut the list (it answers the largest groups first). */
  truncated?: boolean;
}
