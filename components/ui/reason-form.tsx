"use client";

import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { ApiRequestError } from "@/lib/client/api";
import { Button, ButtonRow } from "./button";
import { Field, FieldError, Textarea } from "./field";
import { type Problem, ProblemNotice } from "./notice";
import styles from "./ui.module.css";

// The form of every change a person makes with a reason (it goes to the decision log): an
// operation's controls, an auto-replay switch, the admin page's changes to people and tokens.

/** A field that must be filled in before sending: its control's id and what to say when it is not. */
export interface RequiredField {
  id: string;
  filled: boolean;
  message: string;
}

/** A refused change in words, by HTTP status; the fields the server names are listed in the text. */
function describeRefusal(error: unknown): Problem {
  if (!(error instanceof ApiRequestError)) {
    return {
      title: "No answer from the server",
      text: "The change may or may not have been made. Close this and look at the list before trying again.",
      fields: {},
    };
  }
  const named = error.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  const text = named || error.message;
  if (error.status === 409) return { title: "Not changed", text, fields: {} };
  if (error.status === 422) return { title: "Not allowed", text, fields: {} };
  if (error.status === 400) return { title: "Check the form", text, fields: {} };
  if (error.status === 403) return { title: "Your role may not do this", text, fields: {} };
  if (error.status === 401) return { title: "Your session has ended", text: "Sign in again to continue.", fields: {} };
  if (error.status === 404) return { title: "Not found", text, fields: {} };
  return { title: "The change failed", text, fields: {} };
}

/**
 * Its own fields (if any), a required reason and a submit button. `onSubmit` resolves when the
 * server has taken the change; a refusal is shown as an alert (`describeProblem` words it; its
 * `fields.reason` goes under the reason), with what was typed kept. A `required` field left empty
 * is named in the alert and focused; an empty reason is marked on the reason itself.
 */
export function ReasonForm({
  explanation,
  fields,
  required = [],
  submitLabel,
  danger = false,
  describeProblem = describeRefusal,
  onSubmit,
}: {
  explanation?: ReactNode;
  /** Controls above the reason, each with its own label. */
  fields?: ReactNode;
  /** Checked in order before sending. */
  required?: RequiredField[];
  submitLabel: string;
  danger?: boolean;
  describeProblem?: (error: unknown) => Problem;
  onSubmit: (reason: string) => Promise<unknown>;
}) {
  const reasonId = `${useId()}-reason`;
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [reasonMissing, setReasonMissing] = useState(false);
  const problemRef = useRef<HTMLDivElement>(null);
  const reasonErrors = reasonMissing ? ["Write why: it goes to the decision log."] : problem?.fields.reason;

  function showProblem(next: Problem, focusId?: string) {
    setProblem(next);
    requestAnimationFrame(() => (focusId ? document.getElementById(focusId) : problemRef.current)?.focus());
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (pending) return;
    const missing = required.find((field) => !field.filled);
    if (missing) return showProblem({ title: "Check the form", text: missing.message, fields: {} }, missing.id);
    if (!reason.trim()) {
      setReasonMissing(true);
      document.getElementById(reasonId)?.focus();
      return;
    }
    setPending(true);
    setProblem(null);
    try {
      await onSubmit(reason.trim());
    } catch (error) {
      showProblem(describeProblem(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <ProblemNotice problem={problem} ref={problemRef} />
      {explanation ? <div>{explanation}</div> : null}
      {fields}
      <Field
        label="Reason (required)"
        htmlFor={reasonId}
        error={<FieldError id={`${reasonId}-error`} messages={reasonErrors} />}
      >
        <Textarea
          id={reasonId}
          value={reason}
          required
          data-autofocus={fields ? undefined : ""}
          aria-invalid={reasonErrors ? true : undefined}
          aria-describedby={`${reasonId}-error`}
          onChange={(event) => {
            setReason(event.target.value);
            setReasonMissing(false);
          }}
        />
      </Field>
      <ButtonRow>
        <Button type="submit" variant={danger ? "danger" : "primary"} aria-disabled={pending || undefined}>
          {pending ? "Sending…" : submitLabel}
        </Button>
      </ButtonRow>
    </form>
  );
}
