import type { Tone } from "@/components/ui/badge";
import { type Role, type Grant, holdsPermission } from "@/lib/access/client";
import {
  LIVE_OPERATION_STATES,
  OPERATION_ACTIONS,
  type ItemState,
  type OperationAction,
  type OperationItemView,
  type OperationState,
  type OperationView,
  type Verdict,
  operationOutcome,
  type OperationOutcome,
} from "@/lib/operations/client";

// The console's vocabulary for bulk operations (docs/operations.md): labels, tones and who may
// start what. Types and constants only come from lib/operations/types.ts (isomorphic).

export interface OperationsPage {
  items: OperationView[];
  nextCursor: string | null;
}

export interface OperationItemsPage {
  items: OperationItemView[];
  nextCursor: string | null;
}

export const ACTION_LABEL: Record<OperationAction, string> = {
  replay: "Replay",
  cancel: "Cancel",
  note: "Note",
};

/** What each action does to every record of the operation, said before it is started. */
export const ACTION_EXPLANATION: Record<OperationAction, string> = {
  replay:
    "Schedules a replay of each record, exactly as the single-record Replay does: same message id and effectKey, through the decision again.",
  cancel:
    "Cancels the effect of each record, exactly as the single-record Cancel does: the journal marks its effectKey cancelled.",
  note: "Adds the same note to the history of each record. It changes nothing else.",
};

export const STATE_TONE: Record<OperationState, Tone> = {
  planned: "info",
  running: "violet",
  "awaiting-continue": "warning",
  paused: "warning",
  completed: "success",
  aborted: "neutral",
};

export const ITEM_STATE_TONE: Record<ItemState, Tone> = {
  pending: "neutral",
  dispatched: "violet",
  applied: "success",
  "duplicate-suppressed": "success",
  "held-again": "warning",
  failed: "danger",
  done: "success",
  skipped: "neutral",
  cancelled: "neutral",
  withdrawn: "neutral",
  "not-dispatched": "neutral",
};

export const VERDICT_TONE: Record<Verdict, Tone> = {
  "would-apply": "success",
  "would-suppress": "info",
  "would-hold-gap": "warning",
  "would-hold-stale": "warning",
  "would-hold-unknown": "danger",
  "would-wait": "violet",
  invalid: "danger",
  "not-eligible": "neutral",
  changed: "neutral",
  "would-cancel": "info",
  "effect-applied": "warning",
  "would-note": "info",
  "approval-pending": "neutral",
};

export const VERDICT_MEANING: Record<Verdict, string> = {
  "would-apply": "the effect would be applied",
  "would-suppress": "the effect already exists; it will not be repeated",
  "would-hold-gap": "a predecessor outside this operation is still missing",
  "would-hold-stale": "stale or conflicting: a later sequence was applied",
  "would-hold-unknown": "the journal holds the effect as started past its lease or unknown",
  "would-wait": "in flight right now",
  invalid: "invalid contract, unsupported schema or invalid payload",
  "not-eligible": "the action does not fit the record now",
  changed: "the record changed since the freeze: it will be skipped",
  "would-cancel": "the effect will be marked cancelled",
  "effect-applied": "refused: the effect is already applied",
  "would-note": "the note will be added",
  "approval-pending": "a decision on the record waits for approval: it will be skipped",
};

/** Item states in the order a person reads progress: waiting, then the outcomes, then the rest. */
export const ITEM_STATE_ORDER: ItemState[] = [
  "pending",
  "dispatched",
  "applied",
  "duplicate-suppressed",
  "done",
  "held-again",
  "failed",
  "skipped",
  "cancelled",
  "withdrawn",
  "not-dispatched",
];

/**
 * The actions this role (or these grants, in some domain: ADR 0030) may start and control: replay
 * and cancel need an owner, a note owner or support.
 */
export function allowedOperationActions(who: Role | readonly Grant[]): OperationAction[] {
  return OPERATION_ACTIONS.filter((action) =>
    holdsPermission(who, action === "note" ? "reviews.note" : "reviews.resolve"),
  );
}

/** While the operation can still move by itself, its page refreshes every second or two. */
export function isLive(state: OperationState): boolean {
  return state !== "planned" && LIVE_OPERATION_STATES.includes(state);
}

export const LIVE_REFRESH_MS = 1_500;

const numberFormat = new Intl.NumberFormat("en-US");
export function formatCount(n: number): string {
  return numberFormat.format(n);
}

/**
 * What became of the operation's records, adding up to its total. Folded here from `byState`
 * (the server sends the same as `progress.outcome`), so a cached view of an older shape reads too.
 */
export function outcomeOf(operation: OperationView): OperationOutcome {
  return operationOutcome(operation.progress.byState);
}

/** The outcome parts in reading order, with their words; `bar` names the bar segment's class. */
export const OUTCOME_PARTS: { part: keyof OperationOutcome; label: string }[] = [
  { part: "applied", label: "applied" },
  { part: "heldAgain", label: "held again" },
  { part: "withdrawn", label: "withdrawn" },
  { part: "skipped", label: "skipped" },
  { part: "neverSent", label: "never sent" },
  { part: "waiting", label: "waiting" },
];

/**
 * "16 applied · 98 never sent": the parts that are not zero (applied always), so an aborted or
 * partly finished operation says what really happened rather than "all final".
 */
export function outcomeText(outcome: OperationOutcome): string {
  return OUTCOME_PARTS.filter(({ part }) => part === "applied" || outcome[part] > 0)
    .map(({ part, label }) => `${formatCount(outcome[part])} ${label}`)
    .join(" · ");
}

/** `20%` from 0.2, without float noise. */
export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
