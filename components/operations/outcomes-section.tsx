"use client";

import { useState } from "react";
import { Field, Select } from "@/components/ui/field";
import { Section } from "@/components/ui/section";
import { ITEM_STATES, type OperationView } from "@/lib/operations/client";
import { ItemsList } from "./items-list";
import { formatCount } from "./model";
import styles from "./operations.module.css";

/** Every record of the operation with its state and outcome, filterable by state. */
export function OutcomesSection({ operation, live }: { operation: OperationView; live: number | false }) {
  const [state, setState] = useState("");
  const byState = operation.progress.byState as Record<string, number | undefined>;
  return (
    <Section title="Records and outcomes">
      <div className={styles.toolbar}>
        <Field label="State" htmlFor="operation-items-state">
          <Select id="operation-items-state" value={state} onChange={(event) => setState(event.target.value)}>
            <option value="">all states ({formatCount(operation.total)})</option>
            {ITEM_STATES.map((s) => (
              <option key={s} value={s}>
                {s} ({formatCount(byState[s] ?? 0)})
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <ItemsList
        key={state}
        operationId={operation.id}
        filters={state ? { state } : {}}
        caption={`Records of the operation${state ? ` in the state ${state}` : ""}, in dispatch order.`}
        live={live}
      />
    </Section>
  );
}
