"use client";

import { type ReadonlyURLSearchParams, usePathname, useSearchParams } from "next/navigation";
import { useCallback, useState } from "react";

/** A patch of query-string parameters: a string sets one, `null`/`undefined`/`""` removes it. */
export type ParamPatch = Record<string, string | null | undefined>;

/**
 * `a=1&b=x,y&from=2026-11-30T09:00:00.000Z`: commas and colons stay readable in shared links
 * (both are legal in a query string).
 */
export function toQueryString(params: URLSearchParams): string {
  return params.toString().replaceAll("%2C", ",").replaceAll("%3A", ":");
}

/**
 * The page's query string as state. `setParams(patch)` rewrites the URL in place with
 * `history.replaceState`, which Next.js integrates with its router: `useSearchParams` updates,
 * nothing reloads and no server round trip happens (the client's queries refetch on their own).
 * A shared URL therefore reproduces the view.
 */
export function useUrlParams(): [ReadonlyURLSearchParams, (patch: ParamPatch) => void] {
  const searchParams = useSearchParams();
  const pathname = usePathname();
  const setParams = useCallback(
    (patch: ParamPatch) => {
      const next = new URLSearchParams(window.location.search);
      for (const [key, value] of Object.entries(patch)) {
        if (value === null || value === undefined || value === "") next.delete(key);
        else next.set(key, value);
      }
      const query = toQueryString(next);
      window.history.replaceState(null, "", query ? `${pathname}?${query}` : pathname);
    },
    [pathname],
  );
  return [searchParams, setParams];
}

/**
 * A filter form's draft of values applied in the URL: it starts as `applied`, is replaced by it
 * whenever the URL changes elsewhere (a chip, a group, back/forward), and is `dirty` while the
 * person has typed something not applied yet.
 */
export function useAppliedDraft<T>(applied: T): [draft: T, setDraft: (draft: T) => void, dirty: boolean] {
  const appliedKey = JSON.stringify(applied);
  const [draft, setDraft] = useState(applied);
  const [seenKey, setSeenKey] = useState(appliedKey);
  if (seenKey !== appliedKey) {
    setSeenKey(appliedKey);
    setDraft(applied);
  }
  return [draft, setDraft, JSON.stringify(draft) !== appliedKey];
}
