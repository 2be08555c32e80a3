import type { ItemState, OperationView } from "@/lib/operations/types";
import { Section } from "@/components/ui/section";
import { finishedCount, formatCount, ITEM_STATE_ORDER, percent } from "./model";
import { ItemStateBadge } from "./operation-badges";
import styles from "./operations.module.css";

function share(n: number, total: number): string {
  return total > 0 ? `${(n / total) * 100}%` : "0%";
}

/** How far the operation is: a bar (finished, waiting for an outcome, not yet dispatched) and the counts by state. */
export function OperationProgress({ operation }: { operation: OperationView }) {
  const { total, progress } = operation;
  const byState = progress.byState as Record<string, number | undefined>;
  const finished = finishedCount(operation);
  const trouble = (byState["held-again"] ?? 0) + (byState.failed ?? 0);
  const dispatched = byState.dispatched ?? 0;
  const states = [
    ...ITEM_STATE_ORDER,
    ...Object.keys(byState).filter((s) => !(ITEM_STATE_ORDER as string[]).includes(s)),
  ].filter((s) => (byState[s] ?? 0) > 0);
  const heldShare = progress.outcomes > 0 ? progress.heldAgain / progress.outcomes : null;
  return (
    <Section title="Progress">
      <div
        role="progressbar"
        aria-label="Records with a final state"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={finished}
        aria-valuetext={`${formatCount(finished)} of ${formatCount(total)}`}
        className={styles.progressBar}
      >
        <span className={styles.progressDone} style={{ width: share(finished - trouble, total) }} />
        <span className={styles.progressTrouble} style={{ width: share(trouble, total) }} />
        <span className={styles.progressDispatched} style={{ width: share(dispatched, total) }} />
      </div>
      <p className={styles.progressText}>
        <strong>{formatCount(finished)}</strong> of {formatCount(total)} records final ·{" "}
        {formatCount(progress.dispatched)} dispatched · {formatCount(progress.outcomes)} replay outcomes,{" "}
        {formatCount(progress.heldAgain)} held again
        {heldShare !== null ? ` (${percent(heldShare)})` : ""}
      </p>
      <ul className={styles.counts} aria-label="Records by state">
        {states.map((state) => (
          <li key={state}>
            <ItemStateBadge state={state as ItemState} />
            <span>{formatCount(byState[state] ?? 0)}</span>
          </li>
        ))}
      </ul>
    </Section>
  );
}
