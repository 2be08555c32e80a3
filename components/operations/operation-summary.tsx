import type { ReactNode } from "react";
import { Time } from "@/components/ui/time-zone";
import type { OperationView } from "@/lib/operations/client";
import { Section } from "@/components/ui/section";
import { ACTION_LABEL, formatCount, percent } from "./model";
import styles from "./operations.module.css";
import { SelectionDescription } from "./selection-text";

function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="rc-muted">—</span>;
  return <Time iso={iso} />;
}

function Fact({ label, wide, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? styles.wide : undefined}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Who started the operation and why, what it selected (as frozen), and how it runs. */
export function OperationSummary({ operation }: { operation: OperationView }) {
  const { autoPause } = operation;
  return (
    <Section title="Operation">
      <dl className={styles.facts}>
        <Fact label="Action">{ACTION_LABEL[operation.action] ?? operation.action}</Fact>
        <Fact label="Started by">{operation.createdBy}</Fact>
        <Fact label="Created">
          <When iso={operation.createdAt} />
        </Fact>
        <Fact label="Confirmed">
          {operation.confirmedBy ? (
            <>
              {operation.confirmedBy}, <When iso={operation.confirmedAt} />
            </>
          ) : (
            <span className="rc-muted">not yet</span>
          )}
        </Fact>
        <Fact label="Finished">
          <When iso={operation.finishedAt} />
        </Fact>
        <Fact label="Reason" wide>
          <span className={styles.reasonText}>{operation.reason}</span>
        </Fact>
        <Fact label={`Selection (frozen: ${formatCount(operation.total)} records)`} wide>
          <SelectionDescription selection={operation.selection} className={styles.selection} />
        </Fact>
        <Fact label="Runs">
          {operation.runAt ? (
            <>
              not before <When iso={operation.runAt} />
            </>
          ) : (
            "as soon as confirmed"
          )}
        </Fact>
        <Fact label="Rate">{formatCount(operation.ratePerSecond)} records per second at most</Fact>
        <Fact label="Canary">
          {operation.canarySize > 0
            ? `first ${formatCount(operation.canarySize)} records, then wait${operation.canaryPassed ? " (passed)" : ""}`
            : "none"}
        </Fact>
        <Fact label="Auto-pause">
          {autoPause
            ? `when more than ${percent(autoPause.threshold)} are held again, after ${formatCount(autoPause.minOutcomes)} outcomes`
            : "off"}
        </Fact>
        <Fact label="Version">{operation.version}</Fact>
      </dl>
    </Section>
  );
}
