"use client";

import Link from "next/link";
import { ACTION_LABEL } from "@/components/operations/model";
import { MAX_IDS_IN_LINK, newOperationHref } from "@/components/operations/selection-params";
import { Button, buttonClassName } from "@/components/ui/button";
import type { OperationAction } from "@/lib/operations/client";
import type { QueueFilters } from "./queue-params";
import styles from "./queue.module.css";

const numberFormat = new Intl.NumberFormat("en-US");

function definedFilters(filters: QueueFilters): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * The entry points to bulk operations above the records: the ticked records ("N selected:
 * Replay… / Cancel… / Note…") and the whole filter. Always the same height, so ticking a box
 * moves nothing. Each link opens the new-operation form, which creates nothing by itself.
 */
export function BulkBar({
  actions,
  selectedIds,
  filters,
  onClear,
}: {
  /** What this role may start; the bar is not shown when empty. */
  actions: OperationAction[];
  selectedIds: string[];
  filters: QueueFilters;
  onClear: () => void;
}) {
  const count = selectedIds.length;
  const tooMany = count > MAX_IDS_IN_LINK;
  const filtered = Object.keys(definedFilters(filters)).length > 0;
  return (
    <div
      className={`${styles.bulkBar} ${count > 0 ? styles.bulkBarActive : ""}`}
      role="group"
      aria-label="Bulk operations"
    >
      <span className={styles.bulkCount} role="status">
        {count === 0 ? (
          <span className="rc-muted">Tick records to act on several at once.</span>
        ) : (
          `${numberFormat.format(count)} selected:`
        )}
      </span>
      {count > 0 && !tooMany ? (
        <span className={styles.bulkActions}>
          {actions.map((action) => (
            <Link
              key={action}
              className={buttonClassName(action === "replay" ? "primary" : "default", "sm")}
              href={newOperationHref(action, { type: "ids", ids: selectedIds })}
            >
              {ACTION_LABEL[action]}…
            </Link>
          ))}
        </span>
      ) : null}
      {tooMany ? (
        <span>More than {MAX_IDS_IN_LINK} records: use &quot;Bulk action on this filter&quot; instead.</span>
      ) : null}
      {count > 0 ? (
        <Button size="sm" variant="subtle" onClick={onClear}>
          Clear selection
        </Button>
      ) : null}
      <span className={styles.bulkFilter}>
        {filtered ? (
          <Link
            className={buttonClassName("default", "sm")}
            href={newOperationHref(actions[0] ?? "note", { type: "filter", filter: definedFilters(filters) })}
          >
            Bulk action on this filter
          </Link>
        ) : (
          <span className="rc-muted">Choose a filter to act on all its records.</span>
        )}
      </span>
    </div>
  );
}
