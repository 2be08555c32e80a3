"use client";

import { type FormEvent, useId, useRef, useState } from "react";
import { Button, ButtonRow } from "@/components/ui/button";
import { CheckConfirm } from "@/components/ui/field";
import { type Problem, ProblemNotice } from "@/components/ui/notice";
import { Time, type Times, useTimes } from "@/components/ui/time-zone";
import type { DryRun, OperationView } from "@/lib/operations/client";
import { DryRunTable } from "./dry-run-table";
import { ACTION_LABEL, formatCount, percent } from "./model";
import styles from "./operations.module.css";
import { problemOf } from "./problem";

function settingsText(operation: OperationView, times: Times): string {
  const parts = [`at most ${formatCount(operation.ratePerSecond)} per second`];
  if (operation.runAt) parts.push(`not before ${times.format(operation.runAt)}`);
  parts.push(operation.canarySize > 0 ? `a canary of ${formatCount(operation.canarySize)}` : "no canary");
  parts.push(
    operation.autoPause
      ? `auto-pause past ${percent(operation.autoPause.threshold)} held again (after ${formatCount(operation.autoPause.minOutcomes)} outcomes)`
      : "no auto-pause",
  );
  return parts.join(", ");
}

/**
 * The numbers the person confirms: the dry run on screen, a checkbox that says they read them,
 * and the dry run's time sent along, so the server refuses if a newer one exists meanwhile.
 */
export function ConfirmForm({
  operation,
  dryRun,
  onConfirm,
}: {
  operation: OperationView;
  dryRun: DryRun;
  onConfirm: (body: { expectedVersion: number; dryRunAt: string; checkDone: true }) => Promise<unknown>;
}) {
  const times = useTimes();
  const id = useId();
  // The tick belongs to one dry run: a newer one (shown after a refresh) must be read again.
  const [checkedFor, setCheckedFor] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  const checked = checkedFor === dryRun.at;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    if (!checked) {
      setMissing(true);
      document.getElementById(`${id}-check`)?.focus();
      return;
    }
    setPending(true);
    setProblem(null);
    try {
      await onConfirm({ expectedVersion: operation.version, dryRunAt: dryRun.at, checkDone: true });
    } catch (error) {
      setProblem(problemOf(error));
      setCheckedFor(null);
      requestAnimationFrame(() => problemRef.current?.focus());
    } finally {
      setPending(false);
    }
  }

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <ProblemNotice problem={problem} ref={problemRef} />
      <p className={styles.lead}>
        {ACTION_LABEL[operation.action]} of <strong>{formatCount(operation.total)}</strong> records,{" "}
        {settingsText(operation, times)}. The dry run of <Time iso={dryRun.at} /> says:
      </p>
      <DryRunTable dryRun={dryRun} caption="The dry run you confirm: records by verdict." />
      <CheckConfirm
        id={`${id}-check`}
        label="I reviewed these numbers"
        checked={checked}
        onChange={(event) => {
          setCheckedFor(event.target.checked ? dryRun.at : null);
          setMissing(false);
        }}
        errors={missing ? ["Tick this once you have read the numbers above."] : problem?.fields.checkDone}
        data-autofocus=""
      />
      <ButtonRow>
        <Button type="submit" variant="primary" aria-disabled={pending || undefined}>
          {pending ? "Starting…" : "Confirm and start"}
        </Button>
      </ButtonRow>
    </form>
  );
}
