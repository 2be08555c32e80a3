"use client";

import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ApiRequestError } from "@/lib/client/api";
import styles from "./admin.module.css";

// The form of every change on the admin page: its own fields (if any), a required reason (it
// goes to the decision log, as record actions' reasons do) and a submit button. A refusal is
// shown as an alert, with what was typed kept.

interface Problem {
  title: string;
  text: string;
}

function problemOf(error: unknown): Problem {
  if (!(error instanceof ApiRequestError)) {
    return {
      title: "No answer from the server",
      text: "The change may or may not have been made. Close this and look at the list before trying again.",
    };
  }
  const fields = error.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  const text = fields || error.message;
  if (error.status === 409) return { title: "Not changed", text };
  if (error.status === 422) return { title: "Not allowed", text };
  if (error.status === 400) return { title: "Check the form", text };
  if (error.status === 403) return { title: "Your role may not do this", text };
  if (error.status === 401) return { title: "Your session has ended", text: "Sign in again to continue." };
  if (error.status === 404) return { title: "Not found", text };
  return { title: "The change failed", text };
}

/** A field that must be filled in before sending: its control's id and what to say when it is not. */
export interface RequiredField {
  id: string;
  filled: boolean;
  message: string;
}

export function ChangeForm({
  explanation,
  fields,
  required = [],
  submitLabel,
  danger = false,
  onSubmit,
}: {
  explanation?: ReactNode;
  /** Controls above the reason; each with its own label. */
  fields?: ReactNode;
  /** Checked in order before sending; the first empty one gets the focus and the message. */
  required?: RequiredField[];
  submitLabel: string;
  danger?: boolean;
  onSubmit: (reason: string) => Promise<unknown>;
}) {
  const id = useId();
  const reasonId = `${id}-reason`;
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const problemRef = useRef<HTMLDivElement>(null);

  function showProblem(next: Problem, focusId?: string) {
    setProblem(next);
    requestAnimationFrame(() => (focusId ? document.getElementById(focusId) : problemRef.current)?.focus());
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const missing = [
      ...required,
      { id: reasonId, filled: reason.trim() !== "", message: "Write why: it goes to the decision log." },
    ].find((field) => !field.filled);
    if (missing) {
      showProblem({ title: "Check the form", text: missing.message }, missing.id);
      return;
    }
    setPending(true);
    setProblem(null);
    try {
      await onSubmit(reason.trim());
    } catch (error) {
      showProblem(problemOf(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <div ref={problemRef} tabIndex={-1} className={styles.focusTarget}>
        {problem ? (
          <div role="alert" className={styles.noticeError}>
            <p className={styles.noticeTitle}>{problem.title}</p>
            <p>{problem.text}</p>
          </div>
        ) : null}
      </div>
      {explanation ? <div>{explanation}</div> : null}
      {fields}
      <div>
        <label htmlFor={reasonId} className={styles.label}>
          Reason (required)
        </label>
        <textarea
          id={reasonId}
          className={styles.textarea}
          rows={3}
          value={reason}
          required
          data-autofocus={fields ? undefined : ""}
          onChange={(event) => setReason(event.target.value)}
        />
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
