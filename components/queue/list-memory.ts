"use client";

import { useCallback, useMemo, useSyncExternalStore } from "react";

/*
 * What the queue remembers for the tab while a person opens a record and comes back: the list
 * they came from (its address and the records it showed, in order), for the record page's
 * previous/next, and the rows they ticked, per set of filters. Kept in sessionStorage: one tab's
 * own, gone with the tab, never sent anywhere. Only ids and the queue's own address are stored.
 */

const LIST_KEY = "rc:queue:list";
const TICKS_KEY = "rc:queue:ticks";
/** A long list is remembered up to here: previous/next beyond it is not worth the storage. */
const MAX_REMEMBERED = 2000;

export interface RememberedList {
  /** The queue's address with its filters (path and query), to go back to. */
  href: string;
  ids: string[];
}

/** Where a record stands in the list it was opened from. */
export interface ListPlace {
  href: string;
  /** 1-based. */
  position: number;
  total: number;
  previous: string | null;
  next: string | null;
}

/** Parsed `text`, or null for anything that is not JSON (storage holding something else). */
function parse<T>(text: string | null): T | null {
  try {
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

function readText(key: string): string | null {
  try {
    return window.sessionStorage.getItem(key);
  } catch {
    return null; // storage off: nothing remembered
  }
}

// Components of this tab that read the memory, told when it changes (the storage event only
// reaches other tabs).
const listeners = new Set<() => void>();
function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function write(key: string, value: unknown): void {
  try {
    window.sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage off or full: the console works as before, without the memory
  }
  for (const listener of listeners) listener();
}

/** The stored text of `key`: read after hydration (the server has none), a string so React can compare it. */
function useStored(key: string): string | null {
  return useSyncExternalStore(
    subscribe,
    () => readText(key),
    () => null,
  );
}

export function rememberList(list: RememberedList): void {
  write(LIST_KEY, { href: list.href, ids: list.ids.slice(0, MAX_REMEMBERED) });
}

/** Where record `id` stands in the remembered list `text`, or null when it is not in one. */
export function placeIn(text: string | null, id: string): ListPlace | null {
  const list = parse<RememberedList>(text);
  if (!list || !Array.isArray(list.ids) || typeof list.href !== "string" || !list.href.startsWith("/reviews")) {
    return null;
  }
  const index = list.ids.indexOf(id);
  if (index < 0) return null;
  return {
    href: list.href,
    position: index + 1,
    total: list.ids.length,
    previous: list.ids[index - 1] ?? null,
    next: list.ids[index + 1] ?? null,
  };
}

/** The record's place in the list the queue last showed in this tab, or null. */
export function usePlaceInList(id: string): ListPlace | null {
  const text = useStored(LIST_KEY);
  return useMemo(() => placeIn(text, id), [text, id]);
}

/**
 * The ticked rows of the queue for one set of filters (`filtersKey`), kept across opening a
 * record and coming back. Ticks belong to one set of filters: changing the filters starts a new
 * selection.
 */
export function useRememberedTicks(filtersKey: string): [ReadonlySet<string>, (ids: ReadonlySet<string>) => void] {
  const text = useStored(TICKS_KEY);
  const selected = useMemo(() => {
    const stored = parse<{ key: string; ids: string[] }>(text);
    return stored && stored.key === filtersKey && Array.isArray(stored.ids) ? new Set(stored.ids) : EMPTY;
  }, [text, filtersKey]);
  const set = useCallback(
    (ids: ReadonlySet<string>) => write(TICKS_KEY, { key: filtersKey, ids: [...ids] }),
    [filtersKey],
  );
  return [selected, set];
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * Forgets the ticked rows: called once they have become an operation (or its approval request),
 * so coming back to the queue starts a new selection instead of offering the same records again.
 */
export function forgetTicks(): void {
  write(TICKS_KEY, null);
}
