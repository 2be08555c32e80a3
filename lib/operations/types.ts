// Isomorphic: the wire shapes of /api/v1/operations (docs/operations.md), shared by the API, the
// console's pages and the tests. No database here.

import type { OperationOutcome } from "./outcome";

export const OPERATION_ACTIONS = ["replay", "cancel", "note"] as const;
export type OperationAction = (typeof OPERATION_ACTIONS)[number];

export const OPERATION_STATES = ["planned", "running", "awaiting-continue", "paused", "completed", "aborted"] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

/** States in which the operation may still act; the rest are final. */
export const LIVE_OPERATION_STATES: OperationState[] = ["planned", "running", "awaiting-continue", "paused"];

export const ITEM_STATES = [
  "pending",
  "dispatched",
  "applied",
  "duplicate-suppressed",
  "held-again",
  "failed",
  "done",
  "skipped",
  "cancelled",
  "withdrawn",
  "not-dispatched",
] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export const VERDICTS = [
  "would-apply",
  "would-suppress",
  "would-hold-gap",
  "would-hold-stale",
  "would-hold-unknown",
  "would-wait",
  "invalid",
  "not-eligible",
  "changed",
  "would-cancel",
  "effect-applied",
  "would-note",
  "approval-pending",
] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * The verdicts whose records an operation skips when their turn comes: the action does not fit
 * the record, it changed since the freeze, or its effect is already applied. Every other record
 * is acted on (a replay that would be held again is still sent: a predecessor may arrive first).
 */
export const SKIPPED_VERDICTS: readonly Verdict[] = ["not-eligible", "changed", "effect-applied"];

/** How many records of a dry run its operation would act on: all but those it skips. */
export function actingCount(counts: Partial<Record<string, number>>): number {
  return Object.entries(counts).reduce(
    (sum, [verdict, n]) => sum + ((SKIPPED_VERDICTS as readonly string[]).includes(verdict) ? 0 : (n ?? 0)),
    0,
  );
}

export const OPERATION_CONTROLS = ["dry-run", "confirm", "pause", "resume", "abort"] as const;
export type OperationControl = (typeof OPERATION_CONTROLS)[number];

export type Selection =
  | { type: "ids"; ids: string[] }
  | { type: "filter"; filter: Record<string, string> }
  | { type: "group"; group: { kind: string | null; reason: string; errorClass: string | null } }
  /** What an ended operation did not finish (./outcome.ts): a new operation over them starts again. */
  | { type: "unfinished"; operationId: string };

export interface AutoPause {
  /** Share (0..1] of finished replays that ended held again, past which the operation pauses. */
  threshold: number;
  minOutcomes: number;
}

export interface DryRun {
  at: string;
  counts: Partial<Record<Verdict, number>>;
}

export interface OperationView {
  id: string;
  action: OperationAction;
  state: OperationState;
  reason: string;
  selection: Selection;
  total: number;
  createdBy: string;
  createdAt: string;
  confirmedBy: string | null;
  confirmedAt: string | null;
  finishedAt: string | null;
  runAt: string | null;
  ratePerSecond: number;
  canarySize: number;
  canaryPassed: boolean;
  autoPause: AutoPause | null;
  pauseReason: string | null;
  version: number;
  dryRun: DryRun | null;
  progress: {
    dispatched: number;
    outcomes: number;
    heldAgain: number;
    byState: Partial<Record<ItemState, number>>;
    /** `byState` folded into what became of the records; the parts add up to `total` (lib/operations/outcome.ts). */
    outcome: OperationOutcome;
  };
  /** What the caller may do now. */
  controls: OperationControl[];
}

export interface OperationItemView {
  position: number;
  reviewId: string;
  state: ItemState;
  verdict: Verdict | null;
  verdictDetail: string | null;
  replayId: string | null;
  detail: string | null;
  sequenceKey: string | null;
  sequence: number | null;
  effectKey: string | null;
  frozenVersion: number;
  updatedAt: string;
  record: {
    status: string;
    category: string;
    reason: string;
    kind: string | null;
    messageId: string | null;
    version: number;
  };
}

/** An operation a record belongs to, as the record page shows it. */
export interface RecordOperationRef {
  operationId: string;
  action: OperationAction;
  operationState: OperationState;
  itemState: ItemState;
  position: number;
}

export interface KindAutoReplay {
  kind: string;
  autoReplayReady: boolean;
  /** Why the switch, though on, replays nothing: its authority lost the permission (ADR 0011). */
  pausedReason: string | null;
  updatedBy: string | null;
  updatedAt: string | null;
  /** Open sequence-gap records of this kind whose predecessors have been applied. */
  ready: number;
}
