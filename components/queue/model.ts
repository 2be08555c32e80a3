import type { ReviewCategory } from "@/lib/contract/decide";
import type { ReviewStatus } from "@/lib/reviews/schema";

// The queue's view of the API (docs API.md, GET /api/v1/reviews, /stats, /groups). Only types
// come from lib/, so no server code reaches the browser bundle; the lists below are checked
// against lib's types at compile time.

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

/** The `errorClass` filter value that selects records without an error class. */
export const ERROR_CLASS_NONE = "(none)";

export interface QueueItem {
  id: string;
  status: string;
  category: string;
  reason: string;
  kind: string | null;
  messageId: string | null;
  effectKey: string | null;
  sequenceKey: string | null;
  sequence: number | null;
  attempts: number;
  requiredCheck: string;
  version: number;
  firstSeenAt: string;
  lastSeenAt: string;
  /** Added with the grouped view; absent from older servers. */
  errorClass?: string | null;
  lastError?: string | null;
}

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
