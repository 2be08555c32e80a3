"use client";

import { useState } from "react";

/**
 * Rows that arrive while a person reads the queue are held back instead of pushing the rows
 * under the pointer down (Sidekiq's live poll, without turning the refresh off): a row not seen
 * before that would show above the first row already seen waits, counted, until the person asks
 * for it. Rows that come below (the next page, a record that moved down) show at once. A new
 * list (`listKey`: its filters and order) starts with everything seen.
 */
export function useHeldArrivals<T extends { id: string }>(
  listKey: string,
  items: T[] | undefined,
): { shown: T[] | undefined; held: number; showHeld: () => void } {
  const [seen, setSeen] = useState<{ key: string; ids: ReadonlySet<string> } | null>(null);
  // The first answer of a list is all seen: stored while rendering, React's way of keeping
  // information from an earlier render, so no effect runs a second render for it.
  if (items && seen?.key !== listKey) setSeen({ key: listKey, ids: new Set(items.map((i) => i.id)) });
  if (!items || !seen || seen.key !== listKey) return { shown: items, held: 0, showHeld: () => {} };

  const firstSeen = items.findIndex((item) => seen.ids.has(item.id));
  // Nothing seen is left (all of it finished elsewhere): there is nothing to keep in place.
  const top = firstSeen < 0 ? 0 : firstSeen;
  const shown = items.filter((item, index) => index >= top || seen.ids.has(item.id));
  return {
    shown,
    held: items.length - shown.length,
    showHeld: () => setSeen({ key: listKey, ids: new Set(items.map((i) => i.id)) }),
  };
}
