import type { OperationOutcome } from "@/lib/operations/client";
import { formatCount, outcomeText } from "./model";
import styles from "./operations.module.css";

function share(n: number, total: number): string {
  return total > 0 ? `${(n / total) * 100}%` : "0%";
}

/** Segments in bar order; `neverSent` is left out on purpose: it stays the bar's empty part. */
const SEGMENTS: (keyof OperationOutcome)[] = ["applied", "heldAgain", "withdrawn", "skipped", "waiting"];

/**
 * The operation's records as a bar split by outcome. Its value is the records that reached an
 * outcome (not waiting, not never sent): an aborted operation with 16 of 114 applied shows a bar
 * 16/114 full, never a full green one. `mini` is the list's thin version.
 */
export function OutcomeBar({
  total,
  outcome,
  mini = false,
}: {
  total: number;
  outcome: OperationOutcome;
  mini?: boolean;
}) {
  const reached = total - outcome.waiting - outcome.neverSent;
  // The list's mini bar is decoration: the same outcome is written next to it.
  const a11y = mini
    ? { "aria-hidden": true as const }
    : {
        role: "progressbar",
        "aria-label": "Records with an outcome",
        "aria-valuemin": 0,
        "aria-valuemax": total,
        "aria-valuenow": reached,
        "aria-valuetext": `${outcomeText(outcome)}, of ${formatCount(total)}`,
      };
  return (
    <div {...a11y} className={mini ? styles.miniBar : styles.progressBar}>
      {SEGMENTS.map((part) =>
        outcome[part] > 0 ? (
          <span key={part} className={styles[`seg_${part}`]} style={{ width: share(outcome[part], total) }} />
        ) : null,
      )}
    </div>
  );
}
