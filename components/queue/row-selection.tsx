"use client";

import { useEffect, useRef } from "react";
import type { QueueItem } from "./model";
import styles from "./queue.module.css";

/** The records ticked for a bulk operation, and how to change the ticks. */
export interface RowSelection {
  selected: ReadonlySet<string>;
  /** `range`: a shift-click, which also sets the rows between the last one set and this one. */
  toggle: (ids: string[], checked: boolean, range?: boolean) => void;
}

/** The header cell: ticks every record shown (mixed when only some are). */
export function SelectAllCell({ selection, ids }: { selection: RowSelection; ids: string[] }) {
  const ref = useRef<HTMLInputElement>(null);
  const count = ids.filter((id) => selection.selected.has(id)).length;
  const all = ids.length > 0 && count === ids.length;
  const some = count > 0 && !all;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = some;
  }, [some]);
  return (
    <th scope="col" className={styles.selectCell}>
      <input
        ref={ref}
        type="checkbox"
        aria-label="Select all records on this page"
        checked={all}
        disabled={ids.length === 0}
        onChange={(event) => selection.toggle(ids, event.target.checked)}
      />
    </th>
  );
}

export function SelectRowCell({ selection, item }: { selection: RowSelection; item: QueueItem }) {
  return (
    <td className={styles.selectCell}>
      <input
        type="checkbox"
        aria-label={`Select record ${item.messageId ?? item.id}`}
        // Out of the tab order: the table is one tab stop (the row's link), and x ticks the row.
        tabIndex={-1}
        checked={selection.selected.has(item.id)}
        onChange={(event) =>
          // The change comes from a click (or the space key): its native event says whether shift was held.
          selection.toggle([item.id], event.target.checked, (event.nativeEvent as MouseEvent).shiftKey === true)
        }
      />
    </td>
  );
}
