import { REVIEW_CATEGORIES } from "@review-console/contract";
import { ALL_STATUSES, GROUPED_VIEW, PAGE_PARAMS, REVIEW_STATUSES, reviewListQuerySchema } from "@/lib/reviews/client";

// What a saved view keeps: the queue's URL search string (its filters, its order, the grouped
// view), checked by the very rules GET /api/v1/reviews applies to it and written in one
// canonical form, so one view is one string and the navigation can tell which view a URL is
// (docs/decisions/0047-saved-views.md). Isomorphic: the console normalizes the URL it is on the
// same way to mark the current view.

/**
 * The list's filters and order as the API takes them; anything else is refused, not dropped: a
 * view that silently lost a filter would show more than its name says.
 */
const viewQuerySchema = reviewListQuerySchema.omit({ cursor: true, limit: true }).strict();

/** Comma lists are kept in their vocabulary's order, each value once: `status=resolved,open` is `open,resolved`. */
const LIST_ORDER: Record<string, readonly string[]> = { status: REVIEW_STATUSES, category: REVIEW_CATEGORIES };

export type SavedQueryResult = { ok: true; query: string } | { ok: false; problem: string };

/**
 * `raw` (`?status=open&sort=-attempts`, the leading `?` optional) in canonical form, or what is
 * wrong with it. Page parameters (`cursor`, `limit`) are dropped: a view is what the list is,
 * not where a reader was in it.
 */
export function savedQueryOf(raw: string): SavedQueryResult {
  const params = new URLSearchParams(raw.startsWith("?") ? raw.slice(1) : raw);
  const given: Record<string, string> = {};
  for (const [key, value] of params) {
    if ((PAGE_PARAMS as readonly string[]).includes(key)) continue;
    if (key in given) return { ok: false, problem: `${key} is given more than once` };
    given[key] = value;
  }

  // The console's own words: the grouped view, and every status (the API's "no status filter").
  const { [GROUPED_VIEW.key]: view, ...filters } = given;
  if (view !== undefined && view !== GROUPED_VIEW.value) {
    return { ok: false, problem: `${GROUPED_VIEW.key} must be ${GROUPED_VIEW.value}` };
  }
  const allStatuses = filters.status?.trim() === ALL_STATUSES;
  if (allStatuses) delete filters.status;

  const parsed = viewQuerySchema.safeParse(filters);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The parameter, not the place in its parsed list (`status`, not `status.0`).
    const field = issue.path.length > 0 ? String(issue.path[0]) : "";
    return { ok: false, problem: field ? `${field}: ${issue.message}` : issue.message };
  }

  const canonical = new URLSearchParams();
  if (allStatuses) canonical.set("status", ALL_STATUSES);
  for (const key of Object.keys(viewQuerySchema.shape)) {
    const value: unknown = parsed.data[key as keyof typeof parsed.data];
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      const order = LIST_ORDER[key] ?? [...value].sort();
      canonical.set(key, order.filter((v) => value.includes(v)).join(","));
    } else canonical.set(key, String(value));
  }
  if (view !== undefined) canonical.set(GROUPED_VIEW.key, GROUPED_VIEW.value);
  // Commas and colons stay readable, as in the queue's own URLs (components/ui/use-url-params.ts).
  return { ok: true, query: canonical.toString().replaceAll("%2C", ",").replaceAll("%3A", ":") };
}
