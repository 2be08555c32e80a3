"use client";

import { useRef } from "react";
import { Chip } from "@/components/ui/chip";
import { SkeletonText } from "@/components/ui/skeleton";
import { useRovingFocus } from "@/components/ui/use-roving-focus";
import { CATEGORIES, type QueueStats } from "./model";
import { ReasonChips } from "./reason-chips";
import styles from "./queue.module.css";

/** Placeholder widths of the reason chips while the counts load. */
const SKELETON_REASONS = ["120px", "104px", "96px", "112px", "128px", "88px"];

function isSelected(selection: string | undefined, value: string): boolean {
  return selection !== undefined && selection.split(",").length === 1 && selection === value;
}

/**
 * Counts of the records awaiting an outcome (open, replay-scheduled, replaying), by category and
 * by reason (the largest in one row, the rest under "more…"), as chips that filter the queue. Both rows have a fixed height and the category row
 * always holds its three chips, so nothing moves when the counts arrive or change.
 */
export function StatsBar({
  stats,
  category,
  reason,
  onCategory,
  onReason,
  failed,
  onRetry,
}: {
  stats: QueueStats | undefined;
  /** The counts could not be loaded (the table does not depend on them). */
  failed: boolean;
  onRetry: () => void;
  /** The category filter (a comma list) and the reason filter of the URL. */
  category: string | undefined;
  reason: string | undefined;
  onCategory: (value: string | null) => void;
  onReason: (value: string | null) => void;
}) {
  const categoryRow = useRef<HTMLUListElement>(null);
  const moveInCategories = useRovingFocus(categoryRow, [category]);
  const reasons = stats
    ? Object.entries(stats.active.byReason).sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    : null;
  return (
    <section className={styles.stats} aria-label="Counts awaiting an outcome">
      <h2 className={styles.statsLabel} id="stats-category">
        By category
      </h2>
      <ul className={styles.chipRow} aria-labelledby="stats-category" ref={categoryRow} onKeyDown={moveInCategories}>
        {CATEGORIES.map((value) => {
          const pressed = isSelected(category, value);
          return (
            <li key={value}>
              <Chip
                label={value}
                count={stats ? (stats.active.byCategory[value] ?? 0) : undefined}
                pressed={pressed}
                onClick={() => onCategory(pressed ? null : value)}
              />
            </li>
          );
        })}
        <li className={styles.statsNote}>awaiting an outcome (open, scheduled, replaying)</li>
      </ul>
      <h2 className={styles.statsLabel} id="stats-reason">
        By reason
      </h2>
      {reasons !== null && reasons.length > 0 ? (
        <ReasonChips reasons={reasons} selected={reason} onReason={onReason} />
      ) : (
        <ul className={`${styles.chipRow} ${styles.chipRowStatic}`} aria-labelledby="stats-reason">
          {reasons === null && failed ? (
            <li className={styles.statsNote}>
              Counts are unavailable right now.{" "}
              <button type="button" className={styles.linkButton} onClick={onRetry}>
                Retry
              </button>
            </li>
          ) : reasons === null ? (
            <li className={styles.statsNote}>
              <span className="rc-visually-hidden">Loading counts…</span>
              {SKELETON_REASONS.map((width, i) => (
                <SkeletonText key={i} width={width} height={24} />
              ))}
            </li>
          ) : (
            <li className={styles.statsNote}>No records await an outcome.</li>
          )}
        </ul>
      )}
    </section>
  );
}
