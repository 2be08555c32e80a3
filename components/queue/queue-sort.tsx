"use client";

import type { ListSort, ListSortField } from "./model";
import styles from "./queue.module.css";

// Sortable column headers. The order lives in the URL (`sort=`) like every filter; the API pages
// each order with its own keyset cursor (ADR 0027), so a sorted list scrolls as far as the
// default one.

/** Each sortable column's first click: the order a person most likely wants first. */
const FIRST_ORDER: Record<ListSortField, ListSort> = {
  // Age: oldest first (the records waiting longest).
  firstSeenAt: "firstSeenAt",
  // Last seen: most recently reported first.
  lastSeenAt: "-lastSeenAt",
  // Attempts: most attempts first.
  attempts: "-attempts",
};

/** The order after a click on `field`'s header: its first order, then the reverse, and back. */
export function nextSort(current: ListSort | undefined, field: ListSortField): ListSort {
  if (current === field) return `-${field}`;
  if (current === `-${field}`) return field;
  return FIRST_ORDER[field];
}

function directionOf(current: ListSort | undefined, field: ListSortField): "ascending" | "descending" | undefined {
  if (current === field) return "ascending";
  if (current === `-${field}`) return "descending";
  return undefined;
}

/**
 * A header that sorts by its column: a button inside the `th`, which carries `aria-sort` while the
 * list is in its order. The arrow is decoration; the state is announced by `aria-sort`.
 */
export function SortHeader({
  field,
  label,
  sort,
  onSort,
}: {
  field: ListSortField;
  label: string;
  sort: ListSort | undefined;
  onSort: (sort: ListSort) => void;
}) {
  const direction = directionOf(sort, field);
  return (
    <button
      type="button"
      className={styles.sortButton}
      onClick={() => onSort(nextSort(sort, field))}
      title={`Sort by ${label.toLowerCase()}`}
    >
      {label}
      <span aria-hidden="true" className={direction ? styles.sortArrowOn : styles.sortArrow}>
        {direction === "ascending" ? "▲" : direction === "descending" ? "▼" : "↕"}
      </span>
    </button>
  );
}

/** `aria-sort` of a column's `th`. */
export function ariaSortOf(sort: ListSort | undefined, field: ListSortField) {
  return directionOf(sort, field);
}

/** How the caption names the order. */
export function describeSort(sort: ListSort | undefined): string {
  switch (sort) {
    case "firstSeenAt":
      return "oldest first";
    case "-firstSeenAt":
      return "newest first by first sighting";
    case "lastSeenAt":
      return "least recently seen first";
    case "-lastSeenAt":
      return "most recently seen first";
    case "attempts":
      return "fewest attempts first";
    case "-attempts":
      return "most attempts first";
    default:
      return "newest first";
  }
}
