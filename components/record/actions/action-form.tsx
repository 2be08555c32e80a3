"use client";

import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import { ButtonRow, buttonClassName } from "@/components/ui/button";
import type { Authority } from "@/lib/reviews/client";
import { ACTION_RULES, allowedActions, needsCheckConfirmation, type ActionRequest } from "@/lib/reviews/client";
import type { VerdictRequest } from "@/lib/actions";
import { latestEnvelope, missingRange } from "../format";
import { jsonChanges } from "../json-diff";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";
import { useRecordAction } from "../use-record";
import { ActionExplanation, SUBMIT_LABEL } from "./action-copy";
import { CheckField, ProblemSummary, ProviderRefField, ReasonField, RunAtFields } from "./action-fields";
import { describeActionFailure, type FormProblem } from "./action-problem";
import { useTimes } from "@/components/ui/time-zone";
import { buildActionRequest } from "./action-request";
import { checkPayload, correctionKind, proposedEnvelope, suppliedEnvelope } from "./correction";
import { CorrectionEdit, CorrectionReview } from "./correction-fields";
import type { ActionDraft } from "./draft";
import type { FieldErrors } from "./field-errors";
import { StaleNotice } from "./stale-notice";
import { useReplayVerdict, VerdictLine } from "./verdict";

const FIELD_OF_DRAFT: Record<string, string[]> = {
  reason: ["reason"],
  checkDone: ["checkDone"],
  providerRef: ["providerRef"],
  runAtLocal: ["runAt"],
  runMode: ["runAt"],
  payloadText: ["payload"],
  envelope: ["envelope"],
};

function successText(action: ActionRequest["action"], record: ReviewDetail & { approval?: unknown }): string {
  const label = ACTION_RULES[action].label;
  if (record.approval) return `${label}: waiting for approval by another owner; nothing has changed yet.`;
  return `${label}: done. The record is now ${record.status} (version ${record.version}).`;
}

/**
 * One action's form in the record's dialog: the stale notice, the error summary, what the action
 * will do, its own fields (action-fields.tsx), a correction's edit and review steps, the reason,
 * the check and the submit. The request is built by action-request.ts, a refusal worded by
 * action-problem.ts.
 */
export function ActionForm({
  record,
  role,
  draft,
  onChange,
  onDone,
}: {
  record: ReviewDetail;
  /** The person's grants (or a role held everywhere), read against the record's domain. */
  role: Authority;
  draft: ActionDraft;
  onChange: (draft: ActionDraft) => void;
  /** The change was made: what to report, and the record's version it describes. */
  onDone: (message: string, version: number) => void;
}) {
  const mutation = useRecordAction(record.id);
  const times = useTimes();
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
  // The contract's verdict for what this form would send: the message as it stands, or the
  // correction once it is reviewed (the dry run's judge on the server, as in a bulk operation).
  const verdictRequest: VerdictRequest | null =
    action === "replay"
      ? { action: "replay" }
      : isCorrection && draft.step === "review" && check?.state === "valid" && envelopeInput
        ? {
            action: "correct-and-replay",
            payload: check.payload,
            ...(Object.keys(envelopeInput.values).length > 0 ? { envelope: envelopeInput.values } : {}),
          }
        : null;
  const verdict = useReplayVerdict(record, verdictRequest);

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

  function handleError(error: Error) {
    const failure = describeActionFailure(error, isCorrection);
    if (failure.type === "stale") {
      setErrors({});
      setProblem(null);
      setServerStale(true);
      focus("stale");
      return;
    }
    if (failure.backToEditor) update({ step: "edit" });
    setErrors(failure.errors);
    setProblem(failure.problem);
    focus("summary");
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (mutation.isPending) return;
    if (stale) {
      focus("stale");
      return;
    }
    const built = buildActionRequest(draft, { check, envelope: envelopeInput }, { zone: times.zone });
    if ("errors" in built) return fail(built.errors, "Some fields need attention");
    setErrors({});
    setProblem(null);
    mutation.mutate(built.body, {
      onSuccess: (fresh) => onDone(successText(action, fresh), fresh.version),
      onError: handleError,
    });
  }

  const hasErrors = Object.keys(errors).length > 0;
  const showSubmitPart = !isCorrection || draft.step === "review";
  const fieldProps = { draft, update, errors, ids };

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
        {problem || hasErrors ? (
          <ProblemSummary
            title={problem?.title ?? "Some fields need attention"}
            text={problem?.text}
            hint={problem?.hint}
            errors={errors}
            ids={ids}
          />
        ) : null}
      </div>

      <div className={styles.explain}>
        <ActionExplanation action={action} record={record} />
        {record.approvalNeeded?.includes(action) ? (
          <p className={styles.warnText} data-testid="approval-needed">
            Approval needed: a policy holds this action on this record for a second person. Confirming files a request;
            nothing changes until another person allowed to take it approves.
          </p>
        ) : null}
        {verdictRequest ? (
          <VerdictLine
            label={isCorrection ? "If this correction is replayed now" : "If replayed now"}
            query={verdict}
          />
        ) : null}
      </div>

      {action === "replay" ? <RunAtFields {...fieldProps} /> : null}

      {action === "confirm-applied" || action === "confirm-not-applied" ? <ProviderRefField {...fieldProps} /> : null}

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
          <ReasonField {...fieldProps} />
          {needsCheck ? <CheckField action={action} record={record} {...fieldProps} /> : null}

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
