import { createOperationSchema, DEFAULT_RATE, MAX_RATE } from "@/lib/operations/client";
import type { OperationAction, Selection } from "@/lib/operations/client";
import { UTC, wallClockToIso } from "@/lib/time-zone";
import type { FieldErrors } from "./problem";
import type { CreateOperationRequest } from "./use-operation-mutations";

// What a person has typed into the new-operation form, and the request it becomes: checked in
// words a person reads first, then against the API's own schema (lib/operations/schema.ts), so
// the form sends nothing the server would refuse for its shape. The server checks again.

export interface OperationDraft {
  action: OperationAction;
  reason: string;
  runMode: "now" | "at";
  /** `datetime-local` value, in the person's zone (lib/time-zone.ts), as every time on the page. */
  runAtLocal: string;
  ratePerSecond: string;
  canarySize: string;
  autoPauseOn: boolean;
  /** Percent, 0 < t <= 100. */
  thresholdPercent: string;
  minOutcomes: string;
}

/**
 * The canary a new operation proposes: its first records go out, then it waits for a person
 * (a bad replay harms ten records, not all of them). Capped at the records selected, which the
 * server requires; 0 is still allowed for no canary.
 */
export const DEFAULT_CANARY = 10;

export function defaultCanary(count: number | null): number {
  return count === null ? DEFAULT_CANARY : Math.max(0, Math.min(DEFAULT_CANARY, count));
}

/** A fresh draft; `count` is how many records the selection holds now (null: not known). */
export function newDraft(action: OperationAction, count: number | null = null): OperationDraft {
  return {
    action,
    reason: "",
    runMode: "now",
    runAtLocal: "",
    ratePerSecond: String(DEFAULT_RATE),
    canarySize: String(defaultCanary(count)),
    autoPauseOn: true,
    thresholdPercent: "20",
    minOutcomes: "20",
  };
}

function numberOf(text: string): number | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

export function buildRequest(
  draft: OperationDraft,
  selection: Selection,
  now = Date.now(),
  zone: string = UTC,
): { body: CreateOperationRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const reason = draft.reason.trim();
  if (!reason) errors.reason = ["Write why: it goes to the decision log of every record."];

  const rate = numberOf(draft.ratePerSecond);
  if (rate === null || rate <= 0 || rate > MAX_RATE) {
    errors.ratePerSecond = [`A number above 0 and at most ${MAX_RATE}.`];
  }
  const canary = numberOf(draft.canarySize);
  if (canary === null || !Number.isInteger(canary) || canary < 0) {
    errors.canarySize = ["A whole number, 0 for no canary."];
  }

  const body: CreateOperationRequest = {
    action: draft.action,
    reason,
    selection,
    ratePerSecond: rate ?? DEFAULT_RATE,
    canarySize: canary ?? 0,
  };

  if (draft.action === "replay") {
    if (draft.runMode === "at") {
      const when = wallClockToIso(draft.runAtLocal, zone);
      if (!when) errors.runAt = ["Choose the date and time."];
      else if (Date.parse(when) < now - 60_000) errors.runAt = ["This time has passed: choose a later one, or Now."];
      else body.runAt = when;
    }
    if (draft.autoPauseOn) {
      const threshold = numberOf(draft.thresholdPercent);
      const min = numberOf(draft.minOutcomes);
      if (threshold === null || threshold <= 0 || threshold > 100) {
        errors["autoPause.threshold"] = ["A percentage above 0 and at most 100."];
      }
      if (min === null || !Number.isInteger(min) || min < 1) {
        errors["autoPause.minOutcomes"] = ["A whole number, at least 1."];
      }
      body.autoPause = { threshold: (threshold ?? 20) / 100, minOutcomes: min ?? 20 };
    } else {
      body.autoPause = null;
    }
  }
  if (Object.keys(errors).length > 0) return { errors };
  const parsed = createOperationSchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) (errors[fieldOfIssue(issue.path.join("."))] ??= []).push(issue.message);
    return { errors };
  }
  return { body };
}

/** The form field a server issue belongs to (`selection.ids.3` belongs to the selection). */
export function fieldOfIssue(path: string): string {
  if (path.startsWith("selection")) return "selection";
  if (path === "") return "form";
  return path;
}
