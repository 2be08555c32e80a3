"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { Button, ButtonRow } from "@/components/ui/button";
import { Choice, Field, FieldError, Fieldset, Textarea } from "@/components/ui/field";
import { type IssueLink, Notice, type Problem, ProblemNotice } from "@/components/ui/notice";
import { Section } from "@/components/ui/section";
import { type Role, type Grant } from "@/lib/access/client";
import { ApiRequestError } from "@/lib/client/api";
import type { OperationAction } from "@/lib/operations/client";
import { forgetTicks } from "@/components/queue/list-memory";
import { ChooseSelection } from "./choose-selection";
import { ACTION_EXPLANATION, ACTION_LABEL, allowedOperationActions, formatCount } from "./model";
import { buildRequest, fieldOfIssue, newDraft, type OperationDraft } from "./new-operation-draft";
import styles from "./operations.module.css";
import { type FieldErrors, problemOf } from "./problem";
import { RunSettingsFields } from "./replay-settings-fields";
import { NO_SELECTION, type NewOperationParams } from "./selection-params";
import { SelectionDescription } from "./selection-text";
import { createdPath, pendingDuplicateOf, useCreateOperation } from "./use-operation-mutations";
import { useTimes } from "@/components/ui/time-zone";

const SELECTION_PROBLEM: Record<string, string> = {
  "empty-selection": "Nothing matches this selection now.",
  "selection-too-large": "This selection is too large for one operation (at most 200,000 records).",
};

/** Each field's name as its label says it, and the control a summary link focuses. */
const FIELDS: Record<string, { label: string; targetId?: string }> = {
  selection: { label: "Selection" },
  action: { label: "Action" },
  reason: { label: "Reason", targetId: "op-reason" },
  runAt: { label: "Run at", targetId: "op-run-at" },
  ratePerSecond: { label: "Records per second", targetId: "op-rate" },
  canarySize: { label: "Canary size", targetId: "op-canary" },
  autoPause: { label: "Auto-pause" },
  "autoPause.threshold": { label: "Held again, more than (%)", targetId: "op-threshold" },
  "autoPause.minOutcomes": { label: "After at least (outcomes)", targetId: "op-min-outcomes" },
};

/** The error keys each draft field answers for. */
const ERRORS_OF_DRAFT: Partial<Record<keyof OperationDraft, string[]>> = {
  action: ["action", "runAt", "autoPause"],
  reason: ["reason"],
  runMode: ["runAt"],
  runAtLocal: ["runAt"],
  ratePerSecond: ["ratePerSecond"],
  canarySize: ["canarySize"],
  autoPauseOn: ["autoPause", "autoPause.threshold", "autoPause.minOutcomes"],
  thresholdPercent: ["autoPause.threshold", "autoPause"],
  minOutcomes: ["autoPause.minOutcomes", "autoPause"],
};

function issueLinks(errors: FieldErrors): IssueLink[] {
  return Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => ({ label: FIELDS[field]?.label ?? field, message, targetId: FIELDS[field]?.targetId })),
  );
}

function serverErrors(error: unknown): FieldErrors {
  const out: FieldErrors = {};
  if (!(error instanceof ApiRequestError)) return out;
  for (const issue of error.issues) (out[fieldOfIssue(issue.path)] ??= []).push(issue.message);
  const selectionText = SELECTION_PROBLEM[error.code];
  if (selectionText && !out.selection) out.selection = [selectionText];
  return out;
}

/** How many records the selection holds now, read by the page before anything is created. */
export interface SelectionCount {
  count: number;
  tooLarge: boolean;
}

function CountLine({ count }: { count: SelectionCount | null }) {
  if (!count) return null;
  if (count.tooLarge) {
    return (
      <Notice tone="warning" role="note" title="Too many records">
        <p>
          More than {formatCount(count.count)} records match: narrow the selection, one operation takes at most that.
        </p>
      </Notice>
    );
  }
  if (count.count === 0) {
    return (
      <Notice tone="warning" role="note" title="Nothing matches this selection now">
        <p>No record is selected: creating the operation would be refused.</p>
      </Notice>
    );
  }
  return (
    <p className={styles.selectionCount} data-testid="selection-count">
      <strong>{formatCount(count.count)}</strong> {count.count === 1 ? "record matches" : "records match"} now
    </p>
  );
}

/** The new-operation form: the selection from the link, the action, the reason and how it runs. */
export function NewOperationForm({
  params,
  role,
  grants,
  count = null,
}: {
  params: NewOperationParams;
  role: Role;
  /** The person's grants (ADR 0030): which actions are offered; without, the role everywhere. */
  grants?: readonly Grant[];
  count?: SelectionCount | null;
}) {
  const router = useRouter();
  const allowed = allowedOperationActions(grants ?? role);
  const [draft, setDraft] = useState<OperationDraft>(() =>
    newDraft(allowed.includes(params.action) ? params.action : (allowed[0] ?? "note"), count?.count ?? null),
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  const create = useCreateOperation();
  const times = useTimes();
  const { selection } = params;

  const update = (patch: Partial<OperationDraft>) => {
    setDraft((current) => ({ ...current, ...patch }));
    // A message stays until its field is edited; then the field's live value is what counts.
    const touched = Object.keys(patch).flatMap((key) => ERRORS_OF_DRAFT[key as keyof OperationDraft] ?? []);
    setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => !touched.includes(field))));
  };

  if (allowed.length === 0) {
    return <p className={styles.lead}>Your role ({role}) reads operations and starts none.</p>;
  }
  if (!selection) {
    return (
      <>
        {params.problem && params.problem !== NO_SELECTION ? <Notice tone="warning" title={params.problem} /> : null}
        <ChooseSelection action={allowed.includes(params.action) ? params.action : allowed[0]!} />
      </>
    );
  }

  function fail(found: FieldErrors, next: Problem) {
    setErrors(found);
    setProblem(next);
    requestAnimationFrame(() => problemRef.current?.focus());
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (create.isPending || !selection) return;
    const built = buildRequest(draft, selection, Date.now(), times.zone);
    if ("errors" in built) {
      return fail(built.errors, { title: "Some fields need attention", text: "", fields: built.errors });
    }
    setErrors({});
    setProblem(null);
    create.mutate(built.body, {
      onSuccess: (answer) => {
        forgetTicks();
        router.push(createdPath(answer));
      },
      onError: (error) => {
        // The same request already waits for approval: land on it, nothing new was filed.
        const pending = pendingDuplicateOf(error);
        if (pending) {
          forgetTicks();
          return router.push(`/approvals?request=${encodeURIComponent(pending)}&already=1`);
        }
        fail(serverErrors(error), problemOf(error));
      },
    });
  }

  return (
    <form className={styles.form} onSubmit={submit} noValidate aria-label="New bulk operation">
      <ProblemNotice ref={problemRef} problem={problem} issues={issueLinks(errors)} />

      <Section title="Selection">
        <SelectionDescription selection={selection} className={styles.selection} />
        <CountLine count={count} />
        <p className={styles.note}>
          The records are frozen when the operation is created, each with its version: a record someone changes
          afterwards is skipped, never overridden.
        </p>
        <FieldError id="op-selection-error" messages={errors.selection} />
      </Section>

      <Fieldset legend="Action">
        {allowed.map((action: OperationAction) => (
          <div key={action}>
            <Choice
              type="radio"
              name="op-action"
              value={action}
              checked={draft.action === action}
              onChange={() => update({ action })}
              aria-describedby={`op-action-${action}-hint`}
              label={ACTION_LABEL[action]}
            />
            <p id={`op-action-${action}-hint`} className={styles.choiceHint}>
              {ACTION_EXPLANATION[action]}
            </p>
          </div>
        ))}
        <FieldError id="op-action-error" messages={errors.action} />
      </Fieldset>

      <Field
        label={draft.action === "note" ? "Note (required)" : "Reason (required)"}
        htmlFor="op-reason"
        hint="Written to the decision log with your name, for the operation and for every record it acts on."
        error={<FieldError id="op-reason-error" messages={errors.reason} />}
      >
        <Textarea
          id="op-reason"
          value={draft.reason}
          required
          aria-invalid={errors.reason ? true : undefined}
          aria-describedby="op-reason-hint op-reason-error"
          onChange={(event) => update({ reason: event.target.value })}
        />
      </Field>

      <RunSettingsFields draft={draft} errors={errors} update={update} />

      <ButtonRow>
        <Button type="submit" variant="primary" aria-disabled={create.isPending || undefined}>
          {create.isPending ? "Creating…" : "Create the operation"}
        </Button>
        <span className={styles.note}>
          Nothing is done yet: the next page runs a dry run, and the operation starts only once you confirm its numbers.
        </span>
      </ButtonRow>
    </form>
  );
}
