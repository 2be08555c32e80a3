"use client";

import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import { ButtonRow, buttonClassName } from "@/components/ui/button";
import { CheckConfirm, Choice, FieldError, Fieldset, Textarea } from "@/components/ui/field";
import type { Role } from "@/lib/auth/roles";
import { ApiRequestError } from "@/lib/client/api";
import {
  ACTION_RULES,
  actionRequestSchema,
  allowedActions,
  needsCheckConfirmation,
  type ActionRequest,
} from "@/lib/reviews/action-rules";
import { latestEnvelope, missingRange } from "../format";
import { jsonChanges } from "../json-diff";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";
import { useRecordAction } from "../use-record";
import { ActionExplanation, SUBMIT_LABEL } from "./action-copy";
import { checkPayload, correctionKind, proposedEnvelope, suppliedEnvelope } from "./correction";
import { CorrectionEdit, CorrectionReview } from "./correction-fields";
import type { ActionDraft } from "./draft";
import { type FieldErrors, groupIssues } from "./field-errors";
import { StaleNotice } from "./stale-notice";

const CONFLICT_TITLE: Record<string, string> = {
  "not-allowed": "This action does not fit the record any more",
  "gap-closed": "The gap has closed meanwhile",
  "predecessor-in-flight": "A predecessor is being applied right now",
};

const CONFLICT_HINT: Record<string, string> = {
  "gap-closed": "The missing messages arrived or were resolved: nothing needs skipping. Replay the record instead.",
  "predecessor-in-flight": "Wait until its effect is recorded, then look at the sequence again.",
};

const FIELD_OF_DRAFT: Record<string, string[]> = {
  reason: ["reason"],
  checkDone: ["checkDone"],
  providerRef: ["providerRef"],
  runAtLocal: ["runAt"],
  runMode: ["runAt"],
  payloadText: ["payload"],
  envelope: ["envelope"],
};

interface FormProblem {
  title: string;
  text: string;
  hint?: string;
}

function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return "local time";
  }
}

/** `YYYY-MM-DDTHH:MM` of now in the person's time zone, the format `datetime-local` speaks. */
function localNow(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}`;
}

function successText(action: ActionRequest["action"], record: ReviewDetail): string {
  const label = ACTION_RULES[action].label;
  return `${label}: done. The record is now ${record.status} (version ${record.version}).`;
}

export function ActionForm({
  record,
  role,
  draft,
  onChange,
  onDone,
}: {
  record: ReviewDetail;
  role: Role;
  draft: ActionDraft;
  onChange: (draft: ActionDraft) => void;
  onDone: (message: string) => void;
}) {
  const mutation = useRecordAction(record.id);
  const prefix = useId();
  const ids = (field: string) => `${prefix}-${field.replaceAll(".", "-")}`;
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [serverStale, setServerStale] = useState(false);
  const [focusTarget, setFocusTarget] = useState<{ to: "summary" | "stale" | "review"; n: number } | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  const staleRef = useRef<HTMLDivElement>(null);

  const { action } = draft;
  const rule = ACTION_RULES[action];
  const stale = serverStale || record.version !== draft.base.version;
  const stillAllowed = allowedActions(record, role).includes(action);
  const needsCheck = needsCheckConfirmation(action);
  const isCorrection = action === "correct-and-replay";
  const kind = correctionKind(record, draft);
  const check = useMemo(
    () => (isCorrection ? checkPayload(draft.payloadText, kind) : null),
    [isCorrection, draft.payloadText, kind],
  );
  const envelopeInput = isCorrection ? suppliedEnvelope(record, draft) : null;
  const proposed =
    check?.state === "valid" && envelopeInput ? proposedEnvelope(record, check.payload, envelopeInput.values) : null;
  const gapClosed = action === "skip-gap" && missingRange(record) === null;

  const update = (patch: Partial<ActionDraft>) => {
    onChange({ ...draft, ...patch });
    // An error stays until the field it names is edited, then it is the live state that counts.
    const touched = Object.keys(patch).flatMap((key) => FIELD_OF_DRAFT[key] ?? []);
    if (touched.some((field) => Object.keys(errors).some((e) => e === field || e.startsWith(`${field}.`)))) {
      setErrors((current) =>
        Object.fromEntries(
          Object.entries(current).filter(([e]) => !touched.some((field) => e === field || e.startsWith(`${field}.`))),
        ),
      );
    }
  };

  useEffect(() => {
    if (!focusTarget) return;
    const target =
      focusTarget.to === "summary"
        ? summaryRef.current
        : focusTarget.to === "stale"
          ? staleRef.current
          : document.getElementById(ids("review-heading"));
    target?.focus();
    // `ids` is derived from a stable prefix; the effect runs per request for focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focusTarget]);

  const focus = (to: "summary" | "stale" | "review") => setFocusTarget({ to, n: (focusTarget?.n ?? 0) + 1 });

  function fail(fieldErrors: FieldErrors, title: string, text = "") {
    setErrors(fieldErrors);
    setProblem({ title, text });
    focus("summary");
  }

  /** Edit step of a correction: only a valid, changed payload reaches the review step. */
  function review() {
    if (!check || !envelopeInput) return;
    const found: FieldErrors = { ...envelopeInput.errors };
    if (check.state === "syntax") found.payload = [`JSON syntax error: ${check.message}`];
    else if (check.state === "not-object") found.payload = ["the payload must be a JSON object"];
    else if (check.state === "no-kind") found["envelope.kind"] = ["supply the kind to validate the payload"];
    else if (check.state === "invalid") found.payload = check.issues.map((i) => `${i.path}: ${i.message}`);
    if (Object.keys(found).length > 0) return fail(found, "The correction is not ready yet");
    if (proposed && jsonChanges(latestEnvelope(record), proposed).length === 0) {
      return fail(
        { payload: ["nothing differs from the latest version: to send it unchanged, use Replay"] },
        "Nothing was corrected",
      );
    }
    setErrors({});
    setProblem(null);
    update({ step: "review" });
    focus("review");
  }

  function buildRequest(): { body: ActionRequest } | { errors: FieldErrors } {
    const body: Record<string, unknown> = {
      action,
      expectedVersion: draft.base.version,
      reason: draft.reason,
    };
    if (needsCheck) body.checkDone = draft.checkDone;
    const found: FieldErrors = {};
    if (action === "replay" && draft.runMode === "at") {
      const when = new Date(draft.runAtLocal);
      if (!draft.runAtLocal || Number.isNaN(when.getTime())) found.runAt = ["choose the date and time of the replay"];
      else if (when.getTime() < Date.now() - 60_000) found.runAt = ["this time has passed: choose a later one, or Now"];
      else body.runAt = when.toISOString();
    }
    if (action === "confirm-applied" || action === "confirm-not-applied") {
      const ref = draft.providerRef.trim();
      if (ref) body.providerRef = ref;
    }
    if (isCorrection) {
      if (check?.state !== "valid" || !envelopeInput) {
        found.payload = ["go back to the editor: the payload is not valid"];
      } else {
        body.payload = check.payload;
        if (Object.keys(envelopeInput.values).length > 0) body.envelope = envelopeInput.values;
      }
    }
    const parsed = actionRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
      for (const [field, messages] of Object.entries(groupIssues(issues))) {
        found[field] = [...(found[field] ?? []), ...messages];
      }
    }
    if (Object.keys(found).length > 0 || !parsed.success) return { errors: found };
    return { body: parsed.data };
  }

  function handleError(error: Error) {
    if (!(error instanceof ApiRequestError)) {
      return fail(
        {},
        "No answer from the server",
        "The action may or may not have been saved. The record refreshes by itself; check its history before trying again.",
      );
    }
    if (error.status === 409 && error.code === "stale-version") {
      setErrors({});
      setProblem(null);
      setServerStale(true);
      focus("stale");
      return;
    }
    if (error.status === 409) {
      setErrors({});
      setProblem({
        title: CONFLICT_TITLE[error.code] ?? "The record's state does not allow this",
        text: error.message,
        hint: CONFLICT_HINT[error.code],
      });
      focus("summary");
      return;
    }
    if (error.status === 400 || error.status === 422) {
      if (isCorrection && error.issues.some((i) => i.path.startsWith("payload") || i.path.startsWith("envelope"))) {
        update({ step: "edit" });
      }
      return fail(
        groupIssues(error.issues),
        error.status === 422 ? "The server refused the correction" : "Some fields need attention",
        error.message,
      );
    }
    if (error.status === 403) return fail({}, "Your role may not do this", error.message);
    if (error.status === 401) return fail({}, "Your session has ended", "Sign in again; your input is lost on reload.");
    return fail({}, "The request failed", error.message);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (mutation.isPending) return;
    if (stale) {
      focus("stale");
      return;
    }
    const built = buildRequest();
    if ("errors" in built) return fail(built.errors, "Some fields need attention");
    setErrors({});
    setProblem(null);
    mutation.mutate(built.body, {
      onSuccess: (fresh) => onDone(successText(action, fresh)),
      onError: handleError,
    });
  }

  const summaryItems = Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => ({ field, message })),
  );
  const showSubmitPart = !isCorrection || draft.step === "review";
  const tz = localTimeZone();

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      {stale ? (
        <StaleNotice
          ref={staleRef}
          base={draft.base}
          current={record}
          stillAllowed={stillAllowed}
          actionLabel={rule.label}
          onContinue={() => {
            setServerStale(false);
            update({ base: record });
          }}
        />
      ) : null}

      <div ref={summaryRef} tabIndex={-1} className={styles.summarySlot}>
        {problem || summaryItems.length > 0 ? (
          <div role="alert" className={styles.noticeError}>
            <p className={styles.noticeTitle}>{problem?.title ?? "Some fields need attention"}</p>
            {problem?.text ? <p>{problem.text}</p> : null}
            {problem?.hint ? <p>{problem.hint}</p> : null}
            {summaryItems.length > 0 ? (
              <ul className={styles.issueList}>
                {summaryItems.map(({ field, message }) => (
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
        ) : null}
      </div>

      <div className={styles.explain}>
        <ActionExplanation action={action} record={record} />
      </div>

      {action === "replay" ? (
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
            label="At a time"
          />
          {draft.runMode === "at" ? (
            <div className={styles.field}>
              <label htmlFor={ids("runAt")} className={styles.label}>
                Replay at ({tz})
              </label>
              <input
                id={ids("runAt")}
                type="datetime-local"
                className={styles.input}
                value={draft.runAtLocal}
                min={localNow()}
                onChange={(event) => update({ runAtLocal: event.target.value })}
                aria-invalid={errors.runAt ? true : undefined}
                aria-describedby={`${ids("runAt")}-error`}
              />
              <FieldError id={`${ids("runAt")}-error`} messages={errors.runAt} />
            </div>
          ) : null}
        </Fieldset>
      ) : null}

      {action === "confirm-applied" || action === "confirm-not-applied" ? (
        <div className={styles.field}>
          <label htmlFor={ids("providerRef")} className={styles.label}>
            Provider&apos;s reference {action === "confirm-applied" ? "(required)" : "(optional)"}
          </label>
          <input
            id={ids("providerRef")}
            className={styles.input}
            value={draft.providerRef}
            onChange={(event) => update({ providerRef: event.target.value })}
            required={action === "confirm-applied"}
            aria-invalid={errors.providerRef ? true : undefined}
            aria-describedby={`${ids("providerRef")}-hint ${ids("providerRef")}-error`}
            autoComplete="off"
            data-autofocus=""
          />
          <span id={`${ids("providerRef")}-hint`} className={styles.hint}>
            {action === "confirm-applied"
              ? "The id the provider gave the effect (e.g. its message or charge id): the evidence that it exists."
              : "The provider's answer that it has no such effect, if it gave one (a ticket or lookup id)."}
          </span>
          <FieldError id={`${ids("providerRef")}-error`} messages={errors.providerRef} />
        </div>
      ) : null}

      {isCorrection && check && draft.step === "edit" ? (
        <CorrectionEdit
          record={record}
          draft={draft}
          update={update}
          errors={errors}
          ids={ids}
          check={check}
          onReview={review}
        />
      ) : null}
      {isCorrection && draft.step === "review" && proposed ? (
        <CorrectionReview
          record={record}
          proposed={proposed}
          headingId={ids("review-heading")}
          onBack={() => update({ step: "edit" })}
        />
      ) : null}
      {isCorrection && draft.step === "review" && !proposed ? (
        <p className={styles.warnText}>
          The payload is no longer valid.{" "}
          <button type="button" className={buttonClassName("subtle", "sm")} onClick={() => update({ step: "edit" })}>
            Back to the editor
          </button>
        </p>
      ) : null}

      {showSubmitPart && !gapClosed ? (
        <>
          <div className={styles.field}>
            <label htmlFor={ids("reason")} className={styles.label}>
              {action === "note" ? "Note (required)" : "Reason (required)"}
            </label>
            <Textarea
              id={ids("reason")}
              value={draft.reason}
              onChange={(event) => update({ reason: event.target.value })}
              required
              aria-invalid={errors.reason ? true : undefined}
              aria-describedby={`${ids("reason")}-hint ${ids("reason")}-error`}
              data-autofocus={action === "note" || action === "cancel" || action === "skip-gap" ? "" : undefined}
            />
            <span id={`${ids("reason")}-hint`} className={styles.hint}>
              Written to the record&apos;s history and the decision log with your name.
            </span>
            <FieldError id={`${ids("reason")}-error`} messages={errors.reason} />
          </div>

          {needsCheck ? (
            <CheckConfirm
              id={ids("checkDone")}
              label={
                <>
                  I have done the required check: <strong>{record.requiredCheck}</strong>
                </>
              }
              checked={draft.checkDone}
              onChange={(event) => update({ checkDone: event.target.checked })}
              errors={errors.checkDone}
            />
          ) : null}

          <ButtonRow>
            <button
              type="submit"
              className={buttonClassName("primary", "md", action === "cancel" ? styles.danger : undefined)}
              aria-disabled={mutation.isPending || undefined}
            >
              {mutation.isPending ? "Saving…" : SUBMIT_LABEL[action]}
            </button>
            <span className={styles.hint}>Acts on version {draft.base.version}.</span>
          </ButtonRow>
        </>
      ) : null}
    </form>
  );
}
