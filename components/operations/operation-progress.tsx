import type { ItemState, OperationView } from "@/lib/operations/client";
import { Section } from "@/components/ui/section";
import { formatCount, ITEM_STATE_ORDER, OUTCOME_PARTS, outcomeOf, outcomeText, percent } from "./model";
import { ItemStateBadge } from "./operation-badges";
import styles from "./operations.module.css";
import { OutcomeBar } from "./outcome-bar";

/**
 * How far the operation is and what became of its records: a bar split by outcome (applied, held
 * again, withdrawn or skipped, waiting; what was never sent stays empty), the outcome counts that
 * add up to the total, and the counts by item state.
 */
export function OperationProgress({ operation }: { operation: OperationView }) {
  const { total, progress } = operation;
  const byState = progress.byState as Record<string, number | undefined>;
  const outcome = outcomeOf(operation);
  const states = [
    ...ITEM_STATE_ORDER,
    ...Object.keys(byState).filter((s) => !(ITEM_STATE_ORDER as string[]).includes(s)),
  ].filter((s) => (byState[s] ?? 0) > 0);
  const heldShare = progress.outcomes > 0 ? progress.heldAgain / progress.outcomes : null;
  return (
    <Section title="Progress">
      <OutcomeBar total={total} outcome={outcome} />
      <p className={styles.progressText} data-testid="operation-outcome">
        <strong>{outcomeText(outcome)}</strong> of {formatCount(total)} {total === 1 ? "record" : "records"}
      </p>
      <dl className={styles.outcomes} aria-label="What became of the records">
        {OUTCOME_PARTS.map(({ part, label }) => (
          <div key={part} className={outcome[part] > 0 ? undefined : styles.outcomeZero}>
            <dt>
              <span className={`${styles.swatch} ${styles[`seg_${part}`]}`} aria-hidden="true" />
              {label}
            </dt>
            <dd>{formatCount(outcome[part])}</dd>
          </div>
        ))}
      </dl>
      <p className={styles.note}>
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
