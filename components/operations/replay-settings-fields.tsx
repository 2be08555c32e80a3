"use client";

import { Choice, Field, FieldError, Fieldset, Input } from "@/components/ui/field";
import { useTimes } from "@/components/ui/time-zone";
import type { OperationDraft } from "./new-operation-draft";
import styles from "./operations.module.css";
import type { FieldErrors } from "./problem";

/** A labelled number input with its hint and its error below it. */
function NumberField({
  id,
  label,
  hint,
  value,
  errors,
  min,
  max,
  step,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  errors: string[] | undefined;
  min?: number;
  max?: number;
  step?: number | "any";
  disabled?: boolean;
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label} htmlFor={id} hint={hint} className={errors ? styles.fieldInvalid : undefined}>
      <Input
        id={id}
        type="number"
        inputMode="decimal"
        value={value}
        min={min}
        max={max}
        step={step}
        disabled={disabled}
        aria-invalid={errors ? true : undefined}
        aria-describedby={`${id}-hint ${id}-error`}
        onChange={(event) => onChange(event.target.value)}
      />
      <FieldError id={`${id}-error`} messages={errors} />
    </Field>
  );
}

/** How the operation runs: when (replay), how fast, the canary, and the auto-pause (replay). */
export function RunSettingsFields({
  draft,
  errors,
  update,
}: {
  draft: OperationDraft;
  errors: FieldErrors;
  update: (patch: Partial<OperationDraft>) => void;
}) {
  const replay = draft.action === "replay";
  const times = useTimes();
  return (
    <>
      {replay ? (
        <Fieldset legend="When">
          <Choice
            type="radio"
            name="op-run-mode"
            checked={draft.runMode === "now"}
            onChange={() => update({ runMode: "now" })}
            label="As soon as it is confirmed"
          />
          <Choice
            type="radio"
            name="op-run-mode"
            checked={draft.runMode === "at"}
            onChange={() => update({ runMode: "at" })}
            label="Not before a time"
          />
          {draft.runMode === "at" ? (
            <Field
              label={`Run at (${times.label})`}
              htmlFor="op-run-at"
              className={errors.runAt ? styles.fieldInvalid : undefined}
            >
              <Input
                id="op-run-at"
                type="datetime-local"
                value={draft.runAtLocal}
                aria-invalid={errors.runAt ? true : undefined}
                aria-describedby="op-run-at-error"
                onChange={(event) => update({ runAtLocal: event.target.value })}
              />
              <FieldError id="op-run-at-error" messages={errors.runAt} />
            </Field>
          ) : null}
        </Fieldset>
      ) : null}

      <Fieldset legend="Pace">
        <div className={styles.fieldRow}>
          <NumberField
            id="op-rate"
            label="Records per second"
            hint="At most 1000; the dispatcher never goes faster."
            value={draft.ratePerSecond}
            errors={errors.ratePerSecond}
            min={0}
            max={1000}
            step="any"
            onChange={(ratePerSecond) => update({ ratePerSecond })}
          />
          <NumberField
            id="op-canary"
            label="Canary size"
            hint="The first records; then it waits for someone to continue. 0: none."
            value={draft.canarySize}
            errors={errors.canarySize}
            min={0}
            step={1}
            onChange={(canarySize) => update({ canarySize })}
          />
        </div>
      </Fieldset>

      {replay ? (
        <Fieldset legend="Auto-pause">
          <Choice
            type="checkbox"
            checked={draft.autoPauseOn}
            onChange={(event) => update({ autoPauseOn: event.target.checked })}
            label="Pause by itself when too many replays are held again"
          />
          <div className={styles.fieldRow}>
            <NumberField
              id="op-threshold"
              label="Held again, more than (%)"
              hint="Of the replays with an outcome so far."
              value={draft.thresholdPercent}
              errors={errors["autoPause.threshold"]}
              min={0}
              max={100}
              step="any"
              disabled={!draft.autoPauseOn}
              onChange={(thresholdPercent) => update({ thresholdPercent })}
            />
            <NumberField
              id="op-min-outcomes"
              label="After at least (outcomes)"
              hint="Not judged on fewer outcomes than this."
              value={draft.minOutcomes}
              errors={errors["autoPause.minOutcomes"]}
              min={1}
              step={1}
              disabled={!draft.autoPauseOn}
              onChange={(minOutcomes) => update({ minOutcomes })}
            />
          </div>
          <FieldError id="op-auto-pause-error" messages={errors.autoPause} />
        </Fieldset>
      ) : null}
    </>
  );
}
