"use client";

import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import styles from "./operations.module.css";
import { FieldErrorText, type Problem, ProblemNotice, problemOf } from "./problem";

/**
 * A reason and a submit button: every control of an operation and every auto-replay switch is
 * logged with the reason a person gives. `onSubmit` resolves when the server has taken it; a
 * refusal is shown here, with the reason kept.
 */
export function ReasonForm({
  explanation,
  submitLabel,
  danger = false,
  onSubmit,
}: {
  explanation: ReactNode;
  submitLabel: string;
  danger?: boolean;
  onSubmit: (reason: string) => Promise<unknown>;
}) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [missing, setMissing] = useState(false);
  const problemRef = useRef<HTMLDivElement>(null);
  const fieldErrors = missing ? ["Write why: it goes to the decision log."] : problem?.fields.reason;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    if (!reason.trim()) {
      setMissing(true);
      document.getElementById(`${id}-reason`)?.focus();
      return;
    }
    setPending(true);
    setProblem(null);
    try {
      await onSubmit(reason.trim());
    } catch (error) {
      setProblem(problemOf(error));
      requestAnimationFrame(() => problemRef.current?.focus());
    } finally {
      setPending(false);
    }
  }

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <ProblemNotice problem={problem} ref={problemRef} />
      <div>{explanation}</div>
      <div>
        <label htmlFor={`${id}-reason`} className={styles.label}>
          Reason (required)
        </label>
        <textarea
          id={`${id}-reason`}
          className={styles.textarea}
          rows={3}
          value={reason}
          required
          data-autofocus=""
          aria-invalid={fieldErrors ? true : undefined}
          aria-describedby={`${id}-reason-error`}
          onChange={(event) => {
            setReason(event.target.value);
            setMissing(false);
          }}
        />
        <FieldErrorText id={`${id}-reason-error`} messages={fieldErrors} />
      </div>
      <div className={styles.formButtons}>
        <Button
          type="submit"
          variant={danger ? "default" : "primary"}
          className={danger ? styles.danger : undefined}
          aria-disabled={pending || undefined}
        >
          {pending ? "Sending…" : submitLabel}
        </Button>
      </div>
    </form>
  );
}
