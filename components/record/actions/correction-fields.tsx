"use client";

import dynamic from "next/dynamic";
import { useMemo } from "react";
import { ButtonRow, buttonClassName } from "@/components/ui/button";
import { FieldError, Fieldset } from "@/components/ui/field";
import { ENVELOPE_KEY_FIELDS, isRecord, readEnvelopeKeys } from "@review-console/contract";
import { latestEnvelope, missingEnvelopeFields } from "../format";
import { jsonChanges } from "../json-diff";
import { JsonDiffView } from "../json-diff-view";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";
import { correctionKind, ENVELOPE_FIELD_HINT, type PayloadCheck } from "./correction";
import type { ActionDraft } from "./draft";
import type { FieldErrors } from "./field-errors";

const PayloadEditor = dynamic(() => import("./payload-editor"), {
  ssr: false,
  loading: () => <div className={styles.editorPlaceholder}>Loading the editor…</div>,
});

function CheckStatus({ check, kind, id }: { check: PayloadCheck; kind: string | null; id: string }) {
  let body;
  switch (check.state) {
    case "syntax":
      body = <p className={styles.errorText}>JSON syntax error: {check.message}</p>;
      break;
    case "not-object":
      body = <p className={styles.errorText}>The payload must be a JSON object ({"{ … }"}).</p>;
      break;
    case "no-kind":
      body = <p className={styles.errorText}>Supply the kind above to check the payload against its schema.</p>;
      break;
    case "invalid":
      body = (
        <>
          <p className={styles.errorText}>Does not match the schema of {kind}:</p>
          <ul className={styles.issueList}>
            {check.issues.map((issue) => (
              <li key={`${issue.path}:${issue.message}`}>
                <code className={styles.code}>{issue.path}</code> {issue.message}
              </li>
            ))}
          </ul>
        </>
      );
      break;
    case "valid":
      body = (
        <p className={styles.okText}>
          <span aria-hidden="true">✓ </span>Valid JSON and valid against the schema of {kind}
          {typeof check.payload.schema === "string" ? ` (${check.payload.schema})` : ""}.
        </p>
      );
      break;
  }
  return (
    <div id={id} className={styles.checkStatus} aria-live="polite">
      {body}
    </div>
  );
}

/** A whole envelope pasted into the payload editor would nest it; say so rather than save it. */
function looksLikeEnvelope(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && ("effectKey" in value || "payload" in value);
  } catch {
    return false;
  }
}

export function CorrectionEdit({
  record,
  draft,
  update,
  errors,
  ids,
  check,
  onReview,
}: {
  record: ReviewDetail;
  draft: ActionDraft;
  update: (patch: Partial<ActionDraft>) => void;
  errors: FieldErrors;
  ids: (field: string) => string;
  check: PayloadCheck;
  onReview: () => void;
}) {
  const missing = missingEnvelopeFields(record);
  const kept = ENVELOPE_KEY_FIELDS.filter((field) => !missing.includes(field));
  const latest = latestEnvelope(record);
  const received: Record<string, unknown> = isRecord(latest) ? latest : {};
  const keys = readEnvelopeKeys(latestEnvelope(record));
  const kind = correctionKind(record, draft);
  const fromRevision = record.revisions.at(-1)?.number;
  return (
    <div className={styles.stack}>
      <Fieldset legend="Envelope">
        <p className={styles.hint}>
          {missing.length === 0
            ? "Kept as it is: a replay keeps the message id and the effectKey."
            : `The message lacks ${missing.join(", ")}. You may supply only these; the fields it has stay unchanged.`}
        </p>
        {kept.length > 0 ? (
          <dl className={styles.keptList} aria-label="Envelope fields kept as they are">
            {kept.map((field) => (
              <div key={field}>
                <dt>{field}</dt>
                <dd>
                  <code className={styles.code}>{String(keys[field])}</code>
                </dd>
              </div>
            ))}
          </dl>
        ) : null}
        {missing.length > 0 ? (
          <dl className={styles.envelopeGrid}>
            {missing.map((field, index) => (
              <div key={field}>
                <dt>
                  <label htmlFor={ids(`envelope.${field}`)}>{field} (missing)</label>
                </dt>
                <dd>
                  <input
                    id={ids(`envelope.${field}`)}
                    className={styles.input}
                    inputMode={field === "sequence" ? "numeric" : undefined}
                    value={draft.envelope[field] ?? ""}
                    onChange={(event) => update({ envelope: { ...draft.envelope, [field]: event.target.value } })}
                    aria-describedby={`${ids(`envelope.${field}`)}-hint ${ids(`envelope.${field}`)}-error`}
                    aria-invalid={errors[`envelope.${field}`] ? true : undefined}
                    autoComplete="off"
                    data-autofocus={index === 0 ? "" : undefined}
                  />
                  <span id={`${ids(`envelope.${field}`)}-hint`} className={styles.hint}>
                    {ENVELOPE_FIELD_HINT[field]}
                    {received[field] !== undefined ? `; received ${JSON.stringify(received[field])}, not usable` : ""}
                  </span>
                  <FieldError id={`${ids(`envelope.${field}`)}-error`} messages={errors[`envelope.${field}`]} />
                </dd>
              </div>
            ))}
          </dl>
        ) : null}
      </Fieldset>

      <div className={styles.field}>
        <span id={ids("payload-label")} className={styles.label}>
          Corrected payload (JSON)
        </span>
        <span id={ids("payload-hint")} className={styles.hint}>
          Starts from {fromRevision ? `the payload of revision ${fromRevision}` : "the payload as received"}. Only the
          payload is edited here. Tab leaves the editor.
        </span>
        <div className={styles.editorFrame} data-invalid={check.state !== "valid" ? "true" : undefined}>
          <PayloadEditor
            value={draft.payloadText}
            onChange={(payloadText) => update({ payloadText })}
            labelledBy={ids("payload-label")}
            describedBy={`${ids("payload-hint")} ${ids("payload-check")} ${ids("payload")}-error`}
            invalid={check.state !== "valid" || Boolean(errors.payload)}
            contentId={ids("payload")}
          />
        </div>
        <CheckStatus check={check} kind={kind} id={ids("payload-check")} />
        {looksLikeEnvelope(draft.payloadText) ? (
          <p className={styles.warnText}>
            This looks like a whole envelope (it has an effectKey or a payload field). The editor holds only the
            payload; the envelope&apos;s id and effectKey cannot be changed.
          </p>
        ) : null}
        <FieldError id={`${ids("payload")}-error`} messages={errors.payload} />
      </div>
      <ButtonRow>
        <button type="button" className={buttonClassName("primary")} onClick={onReview}>
          Review the changes
        </button>
        <span className={styles.hint}>Nothing is saved until you confirm on the next step.</span>
      </ButtonRow>
    </div>
  );
}

export function CorrectionReview({
  record,
  proposed,
  onBack,
  headingId,
}: {
  record: ReviewDetail;
  proposed: Record<string, unknown>;
  onBack: () => void;
  headingId: string;
}) {
  const againstOriginal = useMemo(() => jsonChanges(record.message, proposed), [record.message, proposed]);
  const latest = record.revisions.at(-1);
  const againstLatest = useMemo(() => (latest ? jsonChanges(latest.envelope, proposed) : null), [latest, proposed]);
  const next = (latest?.number ?? 0) + 1;
  return (
    <div className={styles.stack}>
      <h3 id={headingId} tabIndex={-1} className={styles.itemTitle} data-autofocus="">
        Review revision {next} before saving
      </h3>
      <p className={styles.hint}>
        The message as received stays unchanged; revision {next} is saved beside it and replayed with the same id and
        effectKey.
      </p>
      <JsonDiffView changes={againstOriginal} caption={`Revision ${next} against the message as received`} />
      {latest && againstLatest ? (
        <JsonDiffView changes={againstLatest} caption={`Revision ${next} against revision ${latest.number}`} />
      ) : null}
      <div>
        <button type="button" className={buttonClassName()} onClick={onBack}>
          Back to the editor
        </button>
      </div>
    </div>
  );
}
