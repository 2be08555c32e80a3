import type { SavedView } from "@/lib/views";
import { savedQueryOf } from "@/lib/views/client";

/** Where a saved view opens: the queue with its query. */
export function viewHref(view: Pick<SavedView, "query">): string {
  return view.query ? `/reviews?${view.query}` : "/reviews";
}

/**
 * The view the queue at `pathname?search` shows, if it is one of `views`: the URL in the same
 * canonical form the server keeps views in (lib/views/saved-query.ts), so a reordered or
 * re-encoded URL is still its view. The person's own view first when a shared one is the same.
 */
export function currentViewId(views: readonly SavedView[], pathname: string, search: string): string | null {
  if (pathname !== "/reviews") return null;
  const current = savedQueryOf(search);
  if (!current.ok) return null;
  return views.find((v) => v.query === current.query)?.id ?? null;
}
