import type { ActionName } from "@/lib/reviews/client";
import { latestPayload, type EnvelopeField } from "../format";
import type { ReviewDetail } from "../types";

/**
 * What a person has typed into one action's form. It outlives the dialog (closing by Escape
 * keeps it) and a refused request, and is dropped only when the action succeeds.
 */
export interface ActionDraft {
  action: ActionName;
  /** The record as it was when the person started: the version they act on and what they saw. */
  base: ReviewDetail;
  reason: string;
  checkDone: boolean;
  runMode: "now" | "at";
  /** `datetime-local` value, read in the person's zone (lib/time-zone.ts), as every time on the page. */
  runAtLocal: string;
  providerRef: string;
  payloadText: string;
  envelope: Partial<Record<EnvelopeField, string>>;
  step: "edit" | "review";
}

function payloadText(record: ReviewDetail): string {
  const payload = latestPayload(record);
  return JSON.stringify(payload === undefined ? {} : payload, null, 2) ?? "{}";
}

export function newDraft(action: ActionName, record: ReviewDetail): ActionDraft {
  return {
    action,
    base: record,
    reason: "",
    checkDone: false,
    runMode: "now",
    runAtLocal: "",
    providerRef: "",
    payloadText: payloadText(record),
    envelope: {},
    step: "edit",
  };
}
