import { isRecord, defaultKindRegistry, validatePayload, type ContractIssue } from "@review-console/contract";
import { latestEnvelope, missingEnvelopeFields, type EnvelopeField } from "../format";
import type { ReviewDetail } from "../types";
import type { ActionDraft } from "./draft";

export type PayloadCheck =
  | { state: "syntax"; message: string }
  | { state: "not-object" }
  | { state: "no-kind" }
  | { state: "invalid"; issues: ContractIssue[] }
  | { state: "valid"; payload: Record<string, unknown> };

/** The kind a correction is validated against: the envelope's, or the one being supplied. */
export function correctionKind(record: ReviewDetail, draft: ActionDraft): string | null {
  const supplied = draft.envelope.kind?.trim();
  return record.kind ?? (supplied ? supplied : null);
}

/** Live check of the editor's text: JSON syntax first, then the kind's payload schema. */
export function checkPayload(text: string, kind: string | null): PayloadCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { state: "syntax", message: error instanceof Error ? error.message : String(error) };
  }
  if (!isRecord(parsed)) return { state: "not-object" };
  if (kind === null) return { state: "no-kind" };
  const result = validatePayload(defaultKindRegistry, kind, parsed);
  return result.ok ? { state: "valid", payload: parsed } : { state: "invalid", issues: result.issues };
}

/** The supplied envelope fields as the API wants them, or the problems with them by field. */
export function suppliedEnvelope(
  record: ReviewDetail,
  draft: ActionDraft,
): { values: Record<string, unknown>; errors: Record<string, string[]> } {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string[]> = {};
  for (const field of missingEnvelopeFields(record)) {
    const raw = draft.envelope[field]?.trim() ?? "";
    if (raw === "") {
      errors[`envelope.${field}`] = [`${field} is missing from the message: supply it`];
      continue;
    }
    if (field === "sequence") {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
        errors["envelope.sequence"] = ["sequence must be a whole number >= 1"];
        continue;
      }
      values.sequence = n;
    } else {
      values[field] = raw;
    }
  }
  return { values, errors };
}

/** The envelope the new revision would carry: the latest one, its payload replaced, gaps filled. */
export function proposedEnvelope(
  record: ReviewDetail,
  payload: Record<string, unknown>,
  supplied: Record<string, unknown>,
): Record<string, unknown> {
  const base = latestEnvelope(record);
  return { ...(isRecord(base) ? base : {}), ...supplied, payload };
}

export const ENVELOPE_FIELD_HINT: Record<EnvelopeField, string> = {
  id: "a non-empty string; identifies the message for investigation",
  kind: "a non-empty string, e.g. invoice.reminder",
  effectKey: "a non-empty string; the idempotency key of the effect",
  sequenceKey: "a non-empty string; the scope of ordering",
  sequence: "a whole number >= 1",
};
