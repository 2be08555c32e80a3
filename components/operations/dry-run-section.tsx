"use client";

import { useId, useState } from "react";
import { Time } from "@/components/ui/time-zone";
import type { OperationView, Verdict } from "@/lib/operations/client";
import { Section } from "@/components/ui/section";
import { DryRunTable } from "./dry-run-table";
import { ItemsList } from "./items-list";
import styles from "./operations.module.css";

/**
 * The last dry run: what `decide` would say about each record right now, counted by verdict.
 * Clicking a count lists those records (`items?verdict=`).
 */
export function DryRunSection({ operation, live }: { operation: OperationView; live: number | false }) {
  const [drilled, setDrilled] = useState<Verdict | null>(null);
  const drillId = useId();
  const { dryRun } = operation;
  return (
    <Section
      title="Dry run"
      note={
        dryRun ? (
          <>
            As of <Time iso={dryRun.at} />
          </>
        ) : undefined
      }
    >
      {dryRun ? (
        <>
          <DryRunTable
            dryRun={dryRun}
            caption="Dry run: records by verdict. Each count lists its records."
            drilled={drilled}
            drillId={drillId}
            onDrill={(verdict) => setDrilled((current) => (current === verdict ? null : verdict))}
          />
          {drilled ? (
            <div id={drillId} className={styles.drill}>
              <h3 className={styles.drillTitle}>Records with the verdict {drilled}</h3>
              <ItemsList
                key={`${drilled}:${dryRun.at}`}
                operationId={operation.id}
                filters={{ verdict: drilled }}
                caption={`Records with the dry-run verdict ${drilled}, in dispatch order.`}
                live={live}
              />
            </div>
          ) : null}
        </>
      ) : (
        <p className={styles.lead}>
          No dry run yet. A dry run says what the contract&apos;s decision would do with each record right now, and
          starting the operation needs one.
        </p>
      )}
    </Section>
  );
}
