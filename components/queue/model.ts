import type { ReviewCategory } from "@review-console/contract";
import type { ReviewStatus } from "@/lib/reviews/client";
import type { ReviewGroup, ReviewQueueItem, ReviewStats } from "@/lib/reviews";

// The queue's view of the API (docs/api.md, GET /api/v1/reviews, /stats, /groups). Only types
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
export { ERROR_CLASS_NONE, LIST_SORTS, type ListSort, type ListSortField } from "@/lib/reviews/client";

/** The list's orders (`sort=`): a field, ascending, or descending with a leading `-`. */

/** A row of the queue: the list API's item, as the server types it. */
export type QueueItem = ReviewQueueItem;

export interface QueuePage {
  items: QueueItem[];
  nextCursor: string | null;
}

/** GET /api/v1/reviews/stats, as the server types it. */
export type QueueStats = ReviewStats;

/** A group of GET /api/v1/reviews/groups, as the server types it. */
/** `replayable` optional: older servers omit it (then the view offers the replay as before). */
export type CauseGroup = Omit<ReviewGroup, "replayable"> & { replayable?: number };

export interface CauseGroups {
  groups: CauseGroup[];
  /** True when the server cut the list (it answers the largest groups first). */
  truncated?: boolean;
}
