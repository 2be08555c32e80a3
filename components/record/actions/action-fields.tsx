"use client";

import type { ReactNode } from "react";
import { CheckConfirm, Choice, Field, FieldError, Fieldset, Input, Textarea } from "@/components/ui/field";
import { Time, useTimes } from "@/components/ui/time-zone";
import type { ActionName } from "@/lib/reviews/client";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";
import { CheckLabel } from "./action-copy";
import type { ActionDraft } from "./draft";
import type { FieldErrors } from "./field-errors";
import { nowIso, untilText } from "./run-at";

// The fields of a record action's form, each on the shared Field (label, hint, error under it).
// A field's control has the id `ids(name)`, so the form's error summary links straight to it;
// its hint is `${id}-hint` and its error `${id}-error`, both named by `aria-describedby`.

interface FieldProps {
  draft: ActionDraft;
  update: (patch: Partial<ActionDraft>) => void;
  errors: FieldErrors;
  ids: (field: string) => string;
}

function describedBy(id: string, hint: boolean): string {
  return hint ? `${id}-hint ${id}-error` : `${id}-error`;
}

/** Replay now or at a time, typed and previewed in the person's zone like every other time on the page. */
export function RunAtFields({ draft, update, errors, ids, now }: FieldProps & { now?: number }) {
  const id = ids("runAt");
  const times = useTimes();
  const iso = draft.runMode === "at" ? times.fromInput(draft.runAtLocal) : null;
  return (
    <Fieldset legend="When">
      <Choice
        type="radio"
        name={ids("runMode")}
        checked={draft.runMode === "now"}
        onChange={() => update({ runMode: "now" })}
        data-autofocus=""
        label="Now"
      />
      <Choice
        type="radio"
        name={ids("runMode")}
        checked={draft.runMode === "at"}
        onChange={() => update({ runMode: "at" })}
        label={`At a time (${times.label})`}
      />
      {draft.runMode === "at" ? (
        <Field
          label={`Replay at (${times.label})`}
          htmlFor={id}
          hint={
            iso ? (
              <>
                Runs at <Time iso={iso} seconds={false} /> ({untilText(iso, now)}).
              </>
            ) : (
              `Date and time in ${times.label}, as every time on this page.`
            )
          }
          error={<FieldError id={`${id}-error`} messages={errors.runAt} />}
        >
          <Input
            id={id}
            type="datetime-local"
            value={draft.runAtLocal}
            min={times.toInput(nowIso(now))}
            onChange={(event) => update({ runAtLocal: event.target.value })}
            aria-invalid={errors.runAt ? true : undefined}
            aria-describedby={describedBy(id, true)}
          />
        </Field>
      ) : null}
    </Fieldset>
  );
}

/** The provider's reference of a confirm: required for "applied" (the evidence), optional otherwise. */
export function ProviderRefField({ draft, update, errors, ids }: FieldProps) {
  const id = ids("providerRef");
  const applied = draft.action === "confirm-applied";
  return (
    <Field
      label={`Provider's reference ${applied ? "(required)" : "(optional)"}`}
      htmlFor={id}
      hint={
        applied
          ? "The id the provider gave the effect (e.g. its message or charge id): the evidence that it exists."
          : "The provider's answer that it has no such effect, if it gave one (a ticket or lookup id)."
      }
      error={<FieldError id={`${id}-error`} messages={errors.providerRef} />}
    >
      <Input
        id={id}
        value={draft.providerRef}
        onChange={(event) => update({ providerRef: event.target.value })}
        required={applied}
        aria-invalid={errors.providerRef ? true : undefined}
        aria-describedby={describedBy(id, true)}
        autoComplete="off"
        data-autofocus=""
      />
    </Field>
  );
}

/** The reason (a note's text), required by every action: it goes to the history and the decision log. */
export function ReasonField({ draft, update, errors, ids }: FieldProps) {
  const id = ids("reason");
  const { action } = draft;
  return (
    <Field
      label={action === "note" ? "Note (required)" : "Reason (required)"}
      htmlFor={id}
      hint="Written to the record's history and the decision log with your name."
      error={<FieldError id={`${id}-error`} messages={errors.reason} />}
    >
      <Textarea
        id={id}
        value={draft.reason}
        onChange={(event) => update({ reason: event.target.value })}
        required
        aria-invalid={errors.reason ? true : undefined}
        aria-describedby={describedBy(id, true)}
        data-autofocus={action === "note" || action === "cancel" || action === "skip-gap" ? "" : undefined}
      />
    </Field>
  );
}

/** The tick that the action's own check was done (which check depends on the action: CheckLabel). */
export function CheckField({
  action,
  record,
  draft,
  update,
  errors,
  ids,
}: FieldProps & { action: ActionName; record: ReviewDetail }) {
  return (
    <CheckConfirm
      id={ids("checkDone")}
      label={<CheckLabel action={action} record={record} />}
      checked={draft.checkDone}
      onChange={(event) => update({ checkDone: event.target.checked })}
      errors={errors.checkDone}
    />
  );
}

/** The form's error summary: a title, the server's words, and a link to each field named. */
export function ProblemSummary({
  title,
  text,
  hint,
  errors,
  ids,
}: {
  title: string;
  text?: string;
  hint?: string;
  errors: FieldErrors;
  ids: (field: string) => string;
}): ReactNode {
  const items = Object.entries(errors).flatMap(([field, messages]) => messages.map((message) => ({ field, message })));
  return (
    <div role="alert" className={styles.noticeError}>
      <p className={styles.noticeTitle}>{title}</p>
      {text ? <p>{text}</p> : null}
      {hint ? <p>{hint}</p> : null}
      {items.length > 0 ? (
        <ul className={styles.issueList}>
          {items.map(({ field, message }) => (
            <li key={`${field}:${message}`}>
              <a
                href={`#${ids(field)}`}
                onClick={(event) => {
                  const target = document.getElementById(ids(field));
                  if (target) {
                    event.preventDefault();
                    target.focus();
                  }
                }}
              >
                {message}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
